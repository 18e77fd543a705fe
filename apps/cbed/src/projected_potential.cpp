#include "cbed/projected_potential.h"

#include <exadnn/core/error.h>

#include <cmath>
#include <complex>

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
  const double lx = c.lattice[0][0] * grid.tiles_x, ly = c.lattice[1][1] * grid.tiles_y;
  const double cell_area = c.lattice[0][0] * c.lattice[1][1];
  // Only the crystal's reciprocal lattice points (every tiles-th frequency) carry potential: the
  // tiles' copies of an atom cancel elsewhere. Their sum over the tiles is tiles_x tiles_y, which
  // with 1 / A_super leaves 1 / A_cell.
  const double scale = kPotentialPrefactor / cell_area;
  std::vector<std::vector<double>> slices(grid.slices_per_cell,
                                          std::vector<double>(size_t(nx) * ny));
  std::complex<double>* v = fft.data();
  for (int s = 0; s < grid.slices_per_cell; ++s) {
    for (int i = 0; i < nx * ny; ++i) v[i] = 0;
    for (const Atom& atom : c.atoms) {
      const int slice =
          std::min(int(atom.frac[2] * grid.slices_per_cell), grid.slices_per_cell - 1);
      if (slice != s) continue;
      for (int iy = 0; iy < ny; iy += 1) {
        const int hy = iy < (ny + 1) / 2 ? iy : iy - ny;  // frequency index on the super grid
        if (hy % grid.tiles_y != 0) continue;
        const double qy = hy / ly;
        for (int ix = 0; ix < nx; ++ix) {
          const int hx = ix < (nx + 1) / 2 ? ix : ix - nx;
          if (hx % grid.tiles_x != 0) continue;
          const double qx = hx / lx;
          const double q2 = qx * qx + qy * qy;
          // exp(-2 pi i q.r) with r = frac * cell edge: the phase uses the cell's Miller indices.
          const double phase =
              -2 * M_PI * (hx / grid.tiles_x * atom.frac[0] + hy / grid.tiles_y * atom.frac[1]);
          v[size_t(iy) * nx + ix] += scale *
                                     electron_scattering_factor(atom.z, std::sqrt(q2), model) *
                                     std::exp(-debye_waller_b * q2 / 4) * std::polar(1.0, phase);
        }
      }
    }
    fft.inverse();  // v(r) = sum_q v(q) exp(2 pi i q.r)
    for (int i = 0; i < nx * ny; ++i) slices[s][i] = v[i].real();
  }
  return slices;
}

}  // namespace cbed
