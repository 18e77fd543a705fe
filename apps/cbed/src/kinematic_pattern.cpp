#include "cbed/kinematic_pattern.h"

#include <exadnn/core/error.h>

#include <cmath>

#include "cbed/electron_optics.h"
#include "cbed/kinematic.h"

namespace cbed {

std::vector<double> kinematic_pattern(const Crystal& c, const MultisliceOptions& o,
                                      int laue_zones) {
  EXADNN_CHECK(laue_zones >= 0, "cbed::kinematic_pattern", "laue_zones must be >= 0, got ",
               laue_zones);
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
  // The higher-order Laue zones: each disc pixel at its own excitation error.
  const double cz = c.lattice[2][2], thickness = cz * o.cells;
  for (int l = -laue_zones; l <= laue_zones; ++l) {
    if (l == 0) continue;
    for (int h = -nx / (2 * tx); h <= nx / (2 * tx); ++h)
      for (int k = -ny / (2 * ty); k <= ny / (2 * ty); ++k) {
        const double gx = h / c.lattice[0][0], gy = k / c.lattice[1][1];
        if (std::hypot(gx, gy) > k_limit + alpha / lambda) continue;
        const double amplitude =
            sigma * kPotentialPrefactor / (cell_area * cz) *
            std::abs(structure_factor(c, {h, k, l}, o.debye_waller_b, o.model));
        if (amplitude == 0) continue;
        for (const auto& [dx, dy] : disc) {
          const int x = nx / 2 + h * tx + dx, y = ny / 2 + k * ty + dy;
          if (x < 0 || x >= nx || y < 0 || y >= ny) continue;
          const double kx = dx / lx, ky = dy / ly, qx = gx + kx, qy = gy + ky;
          if (std::hypot(qx, qy) > k_limit) continue;
          const double delta = l / cz - lambda * (qx * qx + qy * qy - kx * kx - ky * ky) / 2;
          const double reach = std::abs(delta) * thickness < 1e-12
                                   ? thickness
                                   : std::sin(M_PI * delta * thickness) / (M_PI * delta);
          const double intensity = amplitude * amplitude * reach * reach / disc.size();
          pattern[size_t(y) * nx + x] += intensity;
          scattered += intensity;
        }
      }
  }
  paint(nx / 2, ny / 2, 1 - scattered);
  return pattern;
}

}  // namespace cbed
