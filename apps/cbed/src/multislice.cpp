#include "cbed/multislice.h"

#include <exadnn/core/error.h>

#include <cmath>

#include "cbed/electron_optics.h"

namespace cbed {
namespace {
// w[i] *= f[i] over n complex numbers, written out: std::complex's operator* calls __muldc3 for
// its inf/NaN rules, which costs as much as the FFTs here.
void multiply(std::complex<double>* w, const std::complex<double>* f, size_t n) {
  double* a = reinterpret_cast<double*>(w);
  const double* b = reinterpret_cast<const double*>(f);
  for (size_t i = 0; i < n; ++i) {
    const double re = a[2 * i] * b[2 * i] - a[2 * i + 1] * b[2 * i + 1];
    const double im = a[2 * i] * b[2 * i + 1] + a[2 * i + 1] * b[2 * i];
    a[2 * i] = re;
    a[2 * i + 1] = im;
  }
}
}  // namespace

Multislice::Multislice(const Crystal& c, MultisliceOptions options)
    : options_(options),
      lx_(c.lattice[0][0] * options.grid.tiles_x),
      ly_(c.lattice[1][1] * options.grid.tiles_y),
      dz_(c.lattice[2][2] / options.grid.slices_per_cell),
      lambda_(electron_wavelength(options.kilovolts)),
      fft_(options.grid.ny, options.grid.nx, options.measure_fft) {
  const char* where = "cbed::Multislice";
  EXADNN_CHECK(options_.cells >= 1, where, "thickness of ", options_.cells, " cells");
  EXADNN_CHECK(options_.bandwidth > 0 && options_.bandwidth <= 1, where, "bandwidth ",
               options_.bandwidth, " is not in (0, 1]");
  EXADNN_CHECK(options_.aperture_mrad > 0, where, "aperture ", options_.aperture_mrad, " mrad");
  const int nx = options_.grid.nx, ny = options_.grid.ny;
  const size_t n = size_t(nx) * ny;
  // The bandwidth limit: a disc of radius bandwidth * (the smaller Nyquist frequency).
  const double k_limit = options_.bandwidth * std::min(nx / (2 * lx_), ny / (2 * ly_));
  auto inside = [&](int ix, int iy, double* k2) {
    const double kx = frequency(ix, nx, lx_), ky = frequency(iy, ny, ly_);
    *k2 = kx * kx + ky * ky;
    return options_.bandwidth >= 1 || *k2 <= k_limit * k_limit;
  };

  // Transmission functions t = exp(i sigma v), limited to the bandwidth as the wave is, so their
  // product with it does not alias.
  const double sigma = interaction_parameter(options_.kilovolts);
  const auto potentials =
      projected_potentials(c, options_.grid, fft_, options_.debye_waller_b, options_.model);
  std::complex<double>* w = fft_.data();
  for (const std::vector<double>& v : potentials) {
    for (size_t i = 0; i < n; ++i) w[i] = std::polar(1.0, sigma * v[i]);
    if (options_.bandwidth < 1) {
      fft_.forward();
      for (int iy = 0; iy < ny; ++iy)
        for (int ix = 0; ix < nx; ++ix) {
          double k2;
          w[size_t(iy) * nx + ix] *= inside(ix, iy, &k2) ? 1.0 / n : 0.0;
        }
      fft_.inverse();
    }
    transmission_.emplace_back(w, w + n);
  }

  // The Fresnel propagator over one slice, with the bandwidth limit and the FFT's 1/N.
  propagator_.resize(n);
  for (int iy = 0; iy < ny; ++iy)
    for (int ix = 0; ix < nx; ++ix) {
      double k2;
      const bool keep = inside(ix, iy, &k2);
      propagator_[size_t(iy) * nx + ix] =
          keep ? std::polar(1.0 / n, -M_PI * lambda_ * dz_ * k2) : std::complex<double>(0);
    }

  // The probe: aperture A(k) = 1 for lambda |k| <= alpha, aberration phase
  // chi(k) = pi lambda k^2 (Cs lambda^2 k^2 / 2 - defocus), centred at probe_position.
  const double alpha = options_.aperture_mrad * 1e-3;
  const double cs = options_.cs_mm * 1e7;  // Angstrom
  const double px = options_.probe_position[0] * lx_, py = options_.probe_position[1] * ly_;
  for (int iy = 0; iy < ny; ++iy)
    for (int ix = 0; ix < nx; ++ix) {
      const double kx = frequency(ix, nx, lx_), ky = frequency(iy, ny, ly_);
      const double k2 = kx * kx + ky * ky;
      double k2_limit;
      const bool pass = lambda_ * std::sqrt(k2) <= alpha && inside(ix, iy, &k2_limit);
      const double chi =
          M_PI * lambda_ * k2 * (0.5 * cs * lambda_ * lambda_ * k2 - options_.defocus);
      w[size_t(iy) * nx + ix] =
          pass ? std::polar(1.0, -chi - 2 * M_PI * (kx * px + ky * py)) : std::complex<double>(0);
    }
  fft_.inverse();
  double norm2 = 0;
  for (size_t i = 0; i < n; ++i) norm2 += std::norm(w[i]);
  EXADNN_CHECK(norm2 > 0, where, "the aperture of ", options_.aperture_mrad,
               " mrad passes no beam on this grid (pixel ", pixel_mrad()[0], " x ", pixel_mrad()[1],
               " mrad)");
  probe_.resize(n);
  for (size_t i = 0; i < n; ++i) probe_[i] = w[i] / std::sqrt(norm2);
}

Multislice::~Multislice() = default;

std::array<double, 2> Multislice::pixel_mrad() const {
  return {1e3 * lambda_ / lx_, 1e3 * lambda_ / ly_};
}

void Multislice::load_probe() {
  std::copy(probe_.begin(), probe_.end(), fft_.data());
}

// |psi(k)|^2, fft-shifted, of the wave in the buffer: in k space as FFT / N (so the sum of |.|^2
// is 1 / N for a unit wave), scaled by N.
std::vector<double> Multislice::detector_intensity() {
  const int nx = options_.grid.nx, ny = options_.grid.ny;
  const double n = double(nx) * ny;
  std::vector<double> out(size_t(nx) * ny);
  const std::complex<double>* w = fft_.data();
  for (int iy = 0; iy < ny; ++iy)
    for (int ix = 0; ix < nx; ++ix)
      out[size_t((iy + ny / 2) % ny) * nx + (ix + nx / 2) % nx] =
          n * std::norm(w[size_t(iy) * nx + ix]);
  return out;
}

std::vector<double> Multislice::pattern() {
  load_probe();
  const size_t n = probe_.size();
  std::complex<double>* w = fft_.data();
  const int slices = int(transmission_.size()) * options_.cells;
  for (int s = 0; s < slices; ++s) {
    multiply(w, transmission_[s % transmission_.size()].data(), n);
    fft_.forward();
    multiply(w, propagator_.data(), n);
    if (s + 1 < slices) fft_.inverse();
  }
  return detector_intensity();
}

std::vector<double> Multislice::vacuum_pattern() {
  load_probe();
  fft_.forward();
  const double inv_n = 1.0 / probe_.size();
  for (size_t i = 0; i < probe_.size(); ++i) fft_.data()[i] *= inv_n;
  return detector_intensity();
}

}  // namespace cbed
