// Williamson et al. (1992) test case 2: steady zonal geostrophic flow, a solid-body rotation about
// an axis tilted by the flow angle α from the pole, in balance with the height field and with a
// Coriolis parameter rotated alike, f = 2Ω (k_α · n). The initial state is the exact solution at
// every time.
#pragma once

#include "climate/constants.h"
#include "climate/shallow_water.h"
#include "climate/vec3.h"

namespace climate {

struct Williamson2 {
  double alpha = 0;                                  ///< flow angle α [rad]
  double u0 = 2 * kPi * kEarthRadius / (12 * kDay);  ///< equatorial speed [m/s] (≈ 38.6)
  double gh0 = 2.94e4;                               ///< g h0 [m²/s²]
  double radius = kEarthRadius;                      ///< a [m]
  double omega = kEarthOmega;                        ///< Ω [1/s]
  double gravity = kGravity;                         ///< g [m/s²]

  /// The rotation axis k_α = (−sin α, 0, cos α) of the flow and of the Coriolis term.
  Vec3 axis() const;
  /// h(x) = (g h0 − (a Ω u0 + u0²/2) (k_α · n)²) / g [m].
  double height(const Vec3& x) const;
  /// u(x) = (u0 / a) k_α × x [m/s].
  Vec3 velocity(const Vec3& x) const;
  /// The solver's parameters: g and the rotation vector Ω k_α.
  ShallowWaterParams params() const;
  /// The exact state on the solver's mesh.
  SwState state(const ShallowWater& solver) const;
};

}  // namespace climate
