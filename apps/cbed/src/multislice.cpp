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
      cell_(c),
      lx_(c.lattice[0][0] * options.grid.tiles_x),
      ly_(c.lattice[1][1] * options.grid.tiles_y),
      dz_(c.lattice[2][2] / options.grid.slices_per_cell),
      lambda_(electron_wavelength(options.kilovolts)),
      fft_(options.grid.ny, options.grid.nx, options.measure_fft),
      phonon_rng_(options.phonon_seed) {
  const char* where = "cbed::Multislice";
  EXADNN_CHECK(options_.cells >= 1, where, "thickness of ", options_.cells, " cells");
  EXADNN_CHECK(options_.bandwidth > 0 && options_.bandwidth <= 1, where, "bandwidth ",
               options_.bandwidth, " is not in (0, 1]");
  EXADNN_CHECK(options_.aperture_mrad > 0, where, "aperture ", options_.aperture_mrad, " mrad");
  EXADNN_CHECK(options_.frozen_phonons >= 0 && options_.debye_waller_b >= 0, where,
               options_.frozen_phonons,
               " frozen-phonon configurations at B = ", options_.debye_waller_b, " A^2");
  const int nx = options_.grid.nx, ny = options_.grid.ny;
  const size_t n = size_t(nx) * ny;
  // The bandwidth limit: a disc of radius bandwidth * (the smaller Nyquist frequency); the
  // Fresnel propagator over one slice within it, with the FFT's 1/N.
  const double k_limit = options_.bandwidth * std::min(nx / (2 * lx_), ny / (2 * ly_));
  band_.resize(n);
  propagator_.resize(n);
  for (int iy = 0; iy < ny; ++iy)
    for (int ix = 0; ix < nx; ++ix) {
      const double kx = frequency(ix, nx, lx_), ky = frequency(iy, ny, ly_);
      const double k2 = kx * kx + ky * ky;
      const size_t i = size_t(iy) * nx + ix;
      band_[i] = options_.bandwidth >= 1 || k2 <= k_limit * k_limit ? 1.0 / n : 0.0;
      propagator_[i] = band_[i] * std::polar(1.0, -M_PI * lambda_ * dz_ * k2);
    }

  if (options_.frozen_phonons == 0)
    transmission_ = transmissions(c, options_.grid, options_.debye_waller_b, fft_);
  else
    scratch_ = std::make_unique<Fft2d>(ny, nx, options_.measure_fft);

  // The probe: aperture A(k) = 1 for lambda |k| <= alpha, aberration phase
  // chi(k) = pi lambda k^2 (Cs lambda^2 k^2 / 2 - defocus), centred at probe_position.
  const double alpha = options_.aperture_mrad * 1e-3;
  const double cs = options_.cs_mm * 1e7;  // Angstrom
  const double px = options_.probe_position[0] * lx_, py = options_.probe_position[1] * ly_;
  std::complex<double>* w = fft_.data();
  for (int iy = 0; iy < ny; ++iy)
    for (int ix = 0; ix < nx; ++ix) {
      const double kx = frequency(ix, nx, lx_), ky = frequency(iy, ny, ly_);
      const double k2 = kx * kx + ky * ky;
      const size_t i = size_t(iy) * nx + ix;
      const bool pass = lambda_ * std::sqrt(k2) <= alpha && band_[i] > 0;
      const double chi =
          M_PI * lambda_ * k2 * (0.5 * cs * lambda_ * lambda_ * k2 - options_.defocus);
      w[i] = pass ? std::polar(1.0, -chi - 2 * M_PI * (kx * px + ky * py)) : 0.0;
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

// t = exp(i sigma v), limited to the bandwidth as the wave is, so that their product does not
// alias.
Multislice::Transmissions Multislice::transmissions(const Crystal& cell, const SliceGrid& grid,
                                                    double debye_waller_b, Fft2d& fft) const {
  const double sigma = interaction_parameter(options_.kilovolts);
  const auto potentials = projected_potentials(cell, grid, fft, debye_waller_b, options_.model);
  const size_t n = band_.size();
  std::complex<double>* w = fft.data();
  Transmissions out;
  for (const std::vector<double>& v : potentials) {
    for (size_t i = 0; i < n; ++i) w[i] = std::polar(1.0, sigma * v[i]);
    if (options_.bandwidth < 1) {
      fft.forward();
      for (size_t i = 0; i < n; ++i) w[i] *= band_[i];
      fft.inverse();
    }
    out.emplace_back(w, w + n);
  }
  return out;
}

Crystal Multislice::displaced_cell() {
  const int tx = options_.grid.tiles_x, ty = options_.grid.tiles_y;
  const double lz = cell_.lattice[2][2];
  const double u = std::sqrt(options_.debye_waller_b / (8 * M_PI * M_PI));  // rms, per axis
  Crystal out;
  out.lattice = {Vec3{lx_, 0, 0}, Vec3{0, ly_, 0}, Vec3{0, 0, lz}};
  out.atoms.reserve(cell_.atoms.size() * tx * ty);
  for (int j = 0; j < ty; ++j)
    for (int i = 0; i < tx; ++i)
      for (const Atom& a : cell_.atoms) {
        // An atom pushed through the cell's top or bottom stays in this cell (wrapped in z).
        const Vec3 x{(a.frac[0] + i + u * phonon_rng_.normal() / cell_.lattice[0][0]) / tx,
                     (a.frac[1] + j + u * phonon_rng_.normal() / cell_.lattice[1][1]) / ty,
                     a.frac[2] + u * phonon_rng_.normal() / lz};
        out.atoms.push_back({a.z, wrap_unit(x)});
      }
  return out;
}

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

void Multislice::propagate_static() {
  const size_t n = probe_.size();
  std::complex<double>* w = fft_.data();
  const int slices = int(transmission_.size()) * options_.cells;
  for (int s = 0; s < slices; ++s) {
    multiply(w, transmission_[s % transmission_.size()].data(), n);
    fft_.forward();
    multiply(w, propagator_.data(), n);
    if (s + 1 < slices) fft_.inverse();
  }
}

void Multislice::propagate_frozen() {
  const size_t n = probe_.size();
  std::complex<double>* w = fft_.data();
  SliceGrid plane = options_.grid;  // the displaced cell already spans the tiles
  plane.tiles_x = plane.tiles_y = 1;
  for (int c = 0; c < options_.cells; ++c) {
    const Transmissions t = transmissions(displaced_cell(), plane, 0.0, *scratch_);
    for (size_t s = 0; s < t.size(); ++s) {
      multiply(w, t[s].data(), n);
      fft_.forward();
      multiply(w, propagator_.data(), n);
      if (c + 1 < options_.cells || s + 1 < t.size()) fft_.inverse();
    }
  }
}

std::vector<double> Multislice::pattern() {
  if (options_.frozen_phonons == 0) {
    load_probe();
    propagate_static();
    return detector_intensity();
  }
  std::vector<double> mean(probe_.size(), 0.0);
  for (int k = 0; k < options_.frozen_phonons; ++k) {
    load_probe();
    propagate_frozen();
    const std::vector<double> p = detector_intensity();
    for (size_t i = 0; i < p.size(); ++i) mean[i] += p[i] / options_.frozen_phonons;
  }
  return mean;
}

std::vector<double> Multislice::vacuum_pattern() {
  load_probe();
  fft_.forward();
  const double inv_n = 1.0 / probe_.size();
  for (size_t i = 0; i < probe_.size(); ++i) fft_.data()[i] *= inv_n;
  return detector_intensity();
}

}  // namespace cbed
