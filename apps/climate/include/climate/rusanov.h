// The shallow-water flux through a unit tangent direction m̂, and the Rusanov (local
// Lax–Friedrichs) numerical flux between two states at the same point of the sphere.
// A state here is q = (h, h u_x, h u_y, h u_z) with 3-D Cartesian momentum.
#pragma once

#include <algorithm>
#include <array>
#include <cmath>

#include "climate/vec3.h"

namespace climate {

using Point4 = std::array<double, 4>;

/// F(q) · m̂: (h u_n, h u_x u_n + ½ g h² m̂_x, …) with u_n = u · m̂. Returns |u_n| + √(g h), the
/// largest wave speed through m̂.
inline double normal_flux(const Point4& q, const Vec3& m, double g, Point4& f) {
  const double h = q[0];
  const double un = (q[1] * m[0] + q[2] * m[1] + q[3] * m[2]) / h;
  const double p = 0.5 * g * h * h;
  f[0] = h * un;
  f[1] = q[1] * un + p * m[0];
  f[2] = q[2] * un + p * m[1];
  f[3] = q[3] * un + p * m[2];
  return std::abs(un) + std::sqrt(g * h);
}

/// F* · m̂ = ½ (F(q_l) + F(q_r)) · m̂ − ½ λ (q_r − q_l), λ the larger wave speed of the two sides;
/// m̂ points from the left state's element into the right one's. Also returns F(q_l) · m̂.
inline void rusanov_flux(const Point4& ql, const Point4& qr, const Vec3& m, double g, Point4& fstar,
                         Point4& fl) {
  Point4 fr;
  const double lam = std::max(normal_flux(ql, m, g, fl), normal_flux(qr, m, g, fr));
  for (int v = 0; v < 4; ++v) fstar[v] = 0.5 * (fl[v] + fr[v]) - 0.5 * lam * (qr[v] - ql[v]);
}

}  // namespace climate
