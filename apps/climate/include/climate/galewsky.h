// Galewsky, Scott and Polvani (2004), "An initial-value problem for testing numerical models of
// the global shallow-water equations": a zonal jet between φ0 = π/7 and φ1 = π/2 − φ0 (maximum
// u_max = 80 m/s at its centre), the height in gradient-wind balance with it,
//   g h(φ) = g h0 − ∫_{−π/2}^{φ} a u(φ') (f(φ') + tan φ' u(φ') / a) dφ',
// h0 chosen so that the global mean depth is 10 km; and optionally the bump
//   h' = ĥ cos φ exp(−(λ/α)²) exp(−((φ2 − φ)/β)²), ĥ = 120 m, α = 1/3, β = 1/15, φ2 = π/4,
// that makes the jet unstable. Without the bump the state is steady.
#pragma once

#include <vector>

#include "climate/constants.h"
#include "climate/shallow_water.h"

namespace climate {

class Galewsky {
 public:
  /// with_bump: add the perturbation h' to the balanced height.
  explicit Galewsky(bool with_bump = true);

  /// The zonal wind u(φ) [m/s].
  double zonal_wind(double lat) const;
  /// The balanced height h(φ) [m] (without the bump).
  double balanced_height(double lat) const;
  /// The bump h'(λ, φ) [m] (0 without it).
  double bump(double lat, double lon) const;
  double height(const Vec3& x) const;
  Vec3 velocity(const Vec3& x) const;
  ShallowWaterParams params() const { return {kGravity, {0, 0, kEarthOmega}}; }
  SwState state(const ShallowWater& solver) const;

  static constexpr double kUmax = 80, kMeanDepth = 10000, kBumpHeight = 120;
  static constexpr double kPhi0 = kPi / 7, kPhi1 = kPi / 2 - kPi / 7, kPhi2 = kPi / 4;
  static constexpr double kAlpha = 1.0 / 3, kBeta = 1.0 / 15;

 private:
  // ∫_{φ0}^{φ} a u (f + tan φ u / a) dφ' [m²/s²] (u = 0 below φ0).
  double balance_integral(double lat) const;
  // a u (f + tan φ u / a) at φ.
  double balance_integrand(double lat) const;

  bool with_bump_;
  double h0_ = 0;              // [m], from the 10 km mean
  std::vector<double> table_;  // the balance integral at kTable + 1 latitudes from φ0 to φ1
  static constexpr int kTable = 512;
};

}  // namespace climate
