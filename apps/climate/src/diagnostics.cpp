#include "climate/diagnostics.h"

#include <algorithm>
#include <cmath>

namespace climate {

ErrorNorms height_errors(const ShallowWater& solver, const SwState& U,
                         const std::function<double(const Vec3&)>& exact) {
  const CubedSphere& mesh = solver.mesh();
  const int npe = mesh.nodes_per_element();
  double e1 = 0, r1 = 0, e2 = 0, r2 = 0, emax = 0, rmax = 0;
  for (int e = 0; e < mesh.num_elements(); ++e) {
    for (int n = 0; n < npe; ++n) {
      const int g = e * npe + n;
      const double w = mesh.area_weight(g);
      const double ref = exact(mesh.metric(g).x);
      const double err = U[solver.offset(e, 0) + n] - ref;
      e1 += w * std::abs(err);
      r1 += w * std::abs(ref);
      e2 += w * err * err;
      r2 += w * ref * ref;
      emax = std::max(emax, std::abs(err));
      rmax = std::max(rmax, std::abs(ref));
    }
  }
  return {e1 / r1, std::sqrt(e2 / r2), emax / rmax};
}

double observed_order(double coarse_error, double fine_error, double refinement) {
  return std::log(coarse_error / fine_error) / std::log(refinement);
}

}  // namespace climate
