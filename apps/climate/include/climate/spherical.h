// Latitude, longitude and the local east and north unit vectors of a point of the sphere: the
// test cases are written in (λ, φ), the solver works in R³.
#pragma once

#include <cmath>

#include "climate/vec3.h"

namespace climate {

/// A point's latitude φ ∈ [−π/2, π/2] and longitude λ ∈ (−π, π], with its east (e_λ) and north
/// (e_φ) unit vectors; a tangent velocity is u e_λ + v e_φ.
struct LatLon {
  explicit LatLon(const Vec3& x)
      : lat(std::asin(std::fmax(-1.0, std::fmin(1.0, x[2] / norm(x))))),
        lon(std::atan2(x[1], x[0])) {}
  double lat, lon;
  Vec3 east() const { return {-std::sin(lon), std::cos(lon), 0.0}; }
  Vec3 north() const {
    return {-std::sin(lat) * std::cos(lon), -std::sin(lat) * std::sin(lon), std::cos(lat)};
  }
  /// The tangent vector with zonal component u and meridional component v.
  Vec3 tangent(double u, double v) const { return u * east() + v * north(); }
};

}  // namespace climate
