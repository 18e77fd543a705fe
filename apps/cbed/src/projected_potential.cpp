#include "cbed/projected_potential.h"

#include <exadnn/core/error.h>

#include <cmath>
#include <complex>
#include <map>

namespace cbed {

std::vector<std::vector<double>> projected_potentials(const Crystal& c, const SliceGrid& grid,
                                                      Fft2d& fft, double debye_waller_b,
                                                      ScatteringModel model) {
  EXADNN_CHECK(fft.nx() == grid.nx && fft.ny() == grid.ny, "cbed::projected_potentials",
               "the FFT is ", fft.ny(), " x ", fft.nx(), " but the grid ", grid.ny, " x ", grid.nx);
  EXADNN_CHECK(grid.tiles_x >= 1 && grid.tiles_y >= 1 && grid.slices_per_cell >= 1,
               "cbed::projected_potentials", "tiles ", grid.tiles_x, " x ", grid.tiles_y, " and ",
               grid.slices_per_cell, " slices per cell must all be at least 1");
  const int nx = grid.nx, ny = grid.ny;
  const double ax = c.lattice[0][0], by = c.lattice[1][1];
  // Only the crystal's reciprocal lattice points (every tiles-th frequency of the tiled grid)
  // carry potential: the tiles' copies of an atom cancel elsewhere. Their sum over the tiles is
  // tiles_x tiles_y, which with 1 / A_super leaves 1 / A_cell.
  std::vector<int> kept_x, kept_y;  // grid indices; their cell Miller index is (index freq) / tiles
  std::vector<int> h, k;
  for (int ix = 0; ix < nx; ++ix) {
    const int f = ix < (nx + 1) / 2 ? ix : ix - nx;
    if (f % grid.tiles_x == 0) kept_x.push_back(ix), h.push_back(f / grid.tiles_x);
  }
  for (int iy = 0; iy < ny; ++iy) {
    const int f = iy < (ny + 1) / 2 ? iy : iy - ny;
    if (f % grid.tiles_y == 0) kept_y.push_back(iy), k.push_back(f / grid.tiles_y);
  }
  const size_t mx = kept_x.size(), my = kept_y.size();
  // (2 pi a0 e / A_cell) f_Z(|q|) exp(-B q^2 / 4) on the kept points, once per element: [my, mx].
  const double scale = kPotentialPrefactor / (ax * by);
  std::map<int, std::vector<double>> form;
  for (const Atom& atom : c.atoms) {
    if (form.count(atom.z)) continue;
    std::vector<double>& f = form[atom.z];
    f.resize(mx * my);
    for (size_t j = 0; j < my; ++j)
      for (size_t i = 0; i < mx; ++i) {
        const double q2 = (h[i] / ax) * (h[i] / ax) + (k[j] / by) * (k[j] / by);
        f[j * mx + i] = scale * electron_scattering_factor(atom.z, std::sqrt(q2), model) *
                        std::exp(-debye_waller_b * q2 / 4);
      }
  }
  std::vector<std::vector<double>> slices(grid.slices_per_cell,
                                          std::vector<double>(size_t(nx) * ny));
  std::vector<std::complex<double>> ex(mx), ey(my);
  std::complex<double>* v = fft.data();
  for (int s = 0; s < grid.slices_per_cell; ++s) {
    for (int i = 0; i < nx * ny; ++i) v[i] = 0;
    for (const Atom& atom : c.atoms) {
      const int slice =
          std::min(int(atom.frac[2] * grid.slices_per_cell), grid.slices_per_cell - 1);
      if (slice != s) continue;
      // exp(-2 pi i q.r) = exp(-2 pi i h x) exp(-2 pi i k y) in the cell's fractional coordinates.
      for (size_t i = 0; i < mx; ++i) ex[i] = std::polar(1.0, -2 * M_PI * h[i] * atom.frac[0]);
      for (size_t j = 0; j < my; ++j) ey[j] = std::polar(1.0, -2 * M_PI * k[j] * atom.frac[1]);
      const std::vector<double>& f = form[atom.z];
      for (size_t j = 0; j < my; ++j) {
        double* row = reinterpret_cast<double*>(v + size_t(kept_y[j]) * nx);
        const double* fj = f.data() + j * mx;
        for (size_t i = 0; i < mx; ++i) {  // row[kept_x[i]] += f * ey[j] * ex[i], written out
          const double re = ey[j].real() * ex[i].real() - ey[j].imag() * ex[i].imag();
          const double im = ey[j].real() * ex[i].imag() + ey[j].imag() * ex[i].real();
          row[2 * kept_x[i]] += fj[i] * re;
          row[2 * kept_x[i] + 1] += fj[i] * im;
        }
      }
    }
    fft.inverse();  // v(r) = sum_q v(q) exp(2 pi i q.r)
    for (int i = 0; i < nx * ny; ++i) slices[s][i] = v[i].real();
  }
  return slices;
}

}  // namespace cbed
