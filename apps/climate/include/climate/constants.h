// The planet's constants of the shallow-water test cases (Williamson et al. 1992).
#pragma once

namespace climate {

inline constexpr double kPi = 3.14159265358979323846;
/// Earth's radius a [m].
inline constexpr double kEarthRadius = 6.37122e6;
/// Earth's angular velocity Ω [1/s].
inline constexpr double kEarthOmega = 7.292e-5;
/// Gravitational acceleration g [m/s²].
inline constexpr double kGravity = 9.80616;
/// One day [s].
inline constexpr double kDay = 86400.0;

}  // namespace climate
