#include "climate/williamson2.h"

#include <cmath>

namespace climate {

Vec3 Williamson2::axis() const {
  return {-std::sin(alpha), 0.0, std::cos(alpha)};
}

double Williamson2::height(const Vec3& x) const {
  const double s = dot(axis(), x) / norm(x);
  return (gh0 - (radius * omega * u0 + 0.5 * u0 * u0) * s * s) / gravity;
}

Vec3 Williamson2::velocity(const Vec3& x) const {
  return (u0 / radius) * cross(axis(), x);
}

ShallowWaterParams Williamson2::params() const {
  return {gravity, omega * axis()};
}

SwState Williamson2::state(const ShallowWater& solver) const {
  return solver.make_state([this](const Vec3& x, double& h, Vec3& u) {
    h = height(x);
    u = velocity(x);
  });
}

}  // namespace climate
