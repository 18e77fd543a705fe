#include "cbed/kinematic_pattern.h"

#include <exadnn/core/error.h>

#include <cmath>

#include "cbed/electron_optics.h"
#include "cbed/kinematic.h"

namespace cbed {

std::vector<double> kinematic_pattern(const Crystal& c, const MultisliceOptions& o) {
  const int nx = o.grid.nx, ny = o.grid.ny;
  const int tx = o.grid.tiles_x, ty = o.grid.tiles_y;
  const double lx = c.lattice[0][0] * tx, ly = c.lattice[1][1] * ty;
  const double lambda = electron_wavelength(o.kilovolts);
  const double sigma = interaction_parameter(o.kilovolts);
  const double cell_area = c.lattice[0][0] * c.lattice[1][1];
  const double k_limit = o.bandwidth * std::min(nx / (2 * lx), ny / (2 * ly));
  const double alpha = o.aperture_mrad * 1e-3;
  // The disc: pixel offsets (dx, dy) from a beam's centre inside the aperture and the bandwidth.
  std::vector<std::pair<int, int>> disc;
  for (int dy = -ny / 2; dy < ny / 2; ++dy)
    for (int dx = -nx / 2; dx < nx / 2; ++dx) {
      const double k = std::hypot(dx / lx, dy / ly);
      if (lambda * k <= alpha && k <= k_limit) disc.emplace_back(dx, dy);
    }
  EXADNN_CHECK(!disc.empty(), "cbed::kinematic_pattern", "the aperture of ", o.aperture_mrad,
               " mrad passes no beam on this grid");
  std::vector<double> pattern(size_t(nx) * ny, 0.0);
  auto paint = [&](int cx, int cy, double intensity) {
    for (const auto& [dx, dy] : disc) {
      const int x = cx + dx, y = cy + dy;
      if (x < 0 || x >= nx || y < 0 || y >= ny) continue;
      if (std::hypot((x - nx / 2) / lx, (y - ny / 2) / ly) > k_limit) continue;
      pattern[size_t(y) * nx + x] += intensity / disc.size();
    }
  };
  double scattered = 0;
  for (int h = -nx / (2 * tx); h <= nx / (2 * tx); ++h)
    for (int k = -ny / (2 * ty); k <= ny / (2 * ty); ++k) {
      if (h == 0 && k == 0) continue;
      if (std::hypot(h / c.lattice[0][0], k / c.lattice[1][1]) > k_limit) continue;
      const double v_g = kPotentialPrefactor / cell_area * o.cells *
                         std::abs(structure_factor(c, {h, k, 0}, o.debye_waller_b, o.model));
      const double intensity = (sigma * v_g) * (sigma * v_g);
      scattered += intensity;
      paint(nx / 2 + h * tx, ny / 2 + k * ty, intensity);
    }
  paint(nx / 2, ny / 2, 1 - scattered);
  return pattern;
}

}  // namespace cbed
