// Williamson et al. (1992) test case 6: the Rossby–Haurwitz wave of wavenumber R = 4, an initial
// state that travels east almost unchanged in shape (no exact solution for the shallow-water
// equations; its angular speed is close to ν = (R(3 + R)ω − 2Ω) / ((1 + R)(2 + R))).
#pragma once

#include "climate/constants.h"
#include "climate/shallow_water.h"

namespace climate {

struct Williamson6 {
  double omega_w = 7.848e-6;  ///< ω [1/s]
  double k = 7.848e-6;        ///< K [1/s]
  int r = 4;                  ///< R, the zonal wavenumber
  double h0 = 8000;           ///< [m]
  double radius = kEarthRadius;
  double omega = kEarthOmega;  ///< the planet's Ω [1/s]
  double gravity = kGravity;

  /// h(λ, φ) = h0 + (a²/g) (A(φ) + B(φ) cos Rλ + C(φ) cos 2Rλ) [m].
  double height(const Vec3& x) const;
  /// u = aω cos φ + aK cos^{R−1}φ (R sin²φ − cos²φ) cos Rλ, v = −aKR cos^{R−1}φ sin φ sin Rλ.
  Vec3 velocity(const Vec3& x) const;
  ShallowWaterParams params() const { return {gravity, {0, 0, omega}}; }
  SwState state(const ShallowWater& solver) const;
};

}  // namespace climate
