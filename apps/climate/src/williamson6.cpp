#include "climate/williamson6.h"

#include <cmath>

#include "climate/spherical.h"

namespace climate {

double Williamson6::height(const Vec3& x) const {
  const LatLon p(x);
  const double c = std::cos(p.lat), R = r, w = omega_w;
  const double c2 = c * c, cr = std::pow(c, r), c2r = cr * cr;
  // cos^{2R}φ · 2R² cos^{−2}φ written as 2R² cos^{2R−2}φ: finite at the poles.
  const double a =
      w / 2 * (2 * omega + w) * c2 +
      0.25 * k * k *
          ((R + 1) * c2r * c2 + (2 * R * R - R - 2) * c2r - 2 * R * R * std::pow(c, 2 * r - 2));
  const double b = 2 * (omega + w) * k / ((R + 1) * (R + 2)) * cr *
                   ((R * R + 2 * R + 2) - (R + 1) * (R + 1) * c2);
  const double cc = 0.25 * k * k * c2r * ((R + 1) * c2 - (R + 2));
  return h0 +
         radius * radius / gravity * (a + b * std::cos(R * p.lon) + cc * std::cos(2 * R * p.lon));
}

Vec3 Williamson6::velocity(const Vec3& x) const {
  const LatLon p(x);
  const double c = std::cos(p.lat), s = std::sin(p.lat), R = r;
  const double cr1 = std::pow(c, r - 1);
  const double u =
      radius * omega_w * c + radius * k * cr1 * (R * s * s - c * c) * std::cos(R * p.lon);
  const double v = -radius * k * R * cr1 * s * std::sin(R * p.lon);
  return p.tangent(u, v);
}

SwState Williamson6::state(const ShallowWater& solver) const {
  return solver.make_state([this](const Vec3& x, double& h, Vec3& u) {
    h = height(x);
    u = velocity(x);
  });
}

}  // namespace climate
