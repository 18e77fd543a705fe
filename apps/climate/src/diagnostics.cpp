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

std::vector<double> relative_vorticity(const ShallowWater& solver, const SwState& U) {
  const CubedSphere& mesh = solver.mesh();
  const int np = mesh.nodes_1d(), npe = mesh.nodes_per_element();
  const double* D = mesh.basis().diff.data();
  std::vector<double> zeta(mesh.num_nodes());
  std::vector<double> u1(npe), u2(npe);  // covariant components a_i · u of one element
  for (int e = 0; e < mesh.num_elements(); ++e) {
    for (int n = 0; n < npe; ++n) {
      const NodeMetric& m = mesh.metric(e * npe + n);
      const double h = U[solver.offset(e, 0) + n];
      const Vec3 u = {U[solver.offset(e, 1) + n] / h, U[solver.offset(e, 2) + n] / h,
                      U[solver.offset(e, 3) + n] / h};
      // a_1 = (J a²) × n, a_2 = n × (J a¹).
      u1[n] = dot(cross(m.ja2, m.n), u);
      u2[n] = dot(cross(m.n, m.ja1), u);
    }
    for (int j = 0; j < np; ++j)
      for (int i = 0; i < np; ++i) {
        double s = 0;
        for (int l = 0; l < np; ++l)
          s += D[i * np + l] * u2[j * np + l] - D[j * np + l] * u1[l * np + i];
        zeta[e * npe + j * np + i] = s / mesh.metric(e * npe + j * np + i).jac;
      }
  }
  return zeta;
}

Invariants invariants(const ShallowWater& solver, const SwState& U) {
  const CubedSphere& mesh = solver.mesh();
  const int npe = mesh.nodes_per_element();
  const double g = solver.params().gravity;
  const Vec3 omega = solver.params().omega;
  const std::vector<double> zeta = relative_vorticity(solver, U);
  Invariants inv{solver.mass(U), 0, 0, 0};
  for (int e = 0; e < mesh.num_elements(); ++e) {
    // Summed per element first, then over elements (as CubedSphere::area): less round-off.
    double energy = 0, enstrophy = 0;
    for (int n = 0; n < npe; ++n) {
      const int node = e * npe + n;
      const NodeMetric& m = mesh.metric(node);
      const double w = mesh.area_weight(node);
      const double h = U[solver.offset(e, 0) + n];
      const Vec3 hu = {U[solver.offset(e, 1) + n], U[solver.offset(e, 2) + n],
                       U[solver.offset(e, 3) + n]};
      const double u2 = dot(hu, hu) / (h * h);
      const double q = zeta[node] + 2 * dot(omega, m.n);  // absolute vorticity ζ + f
      energy += w * (0.5 * h * u2 + 0.5 * g * h * h);
      enstrophy += w * q * q / (2 * h);
      inv.max_wind = std::max(inv.max_wind, std::sqrt(u2));
    }
    inv.energy += energy;
    inv.enstrophy += enstrophy;
  }
  return inv;
}

double observed_order(double coarse_error, double fine_error, double refinement) {
  return std::log(coarse_error / fine_error) / std::log(refinement);
}

}  // namespace climate
