// Small fixed-size vectors and matrices of the crystal geometry (3-vectors, 3x3 matrices as rows).
#pragma once

#include <array>
#include <cmath>

namespace cbed {

using Vec3 = std::array<double, 3>;
using Mat3 = std::array<Vec3, 3>;  // m[row][column]

inline Vec3 operator+(const Vec3& a, const Vec3& b) {
  return {a[0] + b[0], a[1] + b[1], a[2] + b[2]};
}
inline Vec3 operator-(const Vec3& a, const Vec3& b) {
  return {a[0] - b[0], a[1] - b[1], a[2] - b[2]};
}
inline Vec3 operator*(double s, const Vec3& a) {
  return {s * a[0], s * a[1], s * a[2]};
}
inline double dot(const Vec3& a, const Vec3& b) {
  return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
}
inline double norm(const Vec3& a) {
  return std::sqrt(dot(a, a));
}
inline Vec3 cross(const Vec3& a, const Vec3& b) {
  return {a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]};
}
/// x m: the row vector x times the matrix (fractional coordinates times lattice rows = Cartesian).
inline Vec3 row_times(const Vec3& x, const Mat3& m) {
  return {x[0] * m[0][0] + x[1] * m[1][0] + x[2] * m[2][0],
          x[0] * m[0][1] + x[1] * m[1][1] + x[2] * m[2][1],
          x[0] * m[0][2] + x[1] * m[1][2] + x[2] * m[2][2]};
}
/// Each coordinate reduced to [0, 1).
inline Vec3 wrap_unit(const Vec3& x) {
  Vec3 w;
  for (int i = 0; i < 3; ++i) {
    w[i] = x[i] - std::floor(x[i]);
    if (w[i] >= 1.0) w[i] = 0.0;  // -1e-17 wraps to 1.0 in floating point
  }
  return w;
}
/// Each coordinate reduced to [-1/2, 1/2): the nearest periodic image of a fractional difference.
inline Vec3 wrap_half(const Vec3& d) {
  return {d[0] - std::round(d[0]), d[1] - std::round(d[1]), d[2] - std::round(d[2])};
}

}  // namespace cbed
