// The application's random numbers: std::mt19937_64 (its output is fixed by the C++ standard) with
// the uniform draw written here, so a seed gives the same crystals on every standard library.
#pragma once

#include <cmath>
#include <cstdint>
#include <random>

namespace cbed {

class Rng {
 public:
  explicit Rng(uint64_t seed = 0) : engine_(seed) {}
  /// Uniform in [0, 1) with 53 random bits.
  double uniform() { return static_cast<double>(engine_() >> 11) * 0x1.0p-53; }
  /// Uniform in [lo, hi).
  double uniform(double lo, double hi) { return lo + (hi - lo) * uniform(); }
  /// Standard normal (Box-Muller on two uniform draws; written here for the same reason).
  double normal() {
    const double u = 1.0 - uniform();  // (0, 1]
    return std::sqrt(-2 * std::log(u)) * std::cos(2 * 3.14159265358979323846 * uniform());
  }
  /// Uniform integer in [0, n) for n > 0.
  int below(int n) { return static_cast<int>(uniform() * n); }
  /// The raw 64-bit engine, for std distributions (e.g. Poisson noise).
  std::mt19937_64& engine() { return engine_; }

 private:
  std::mt19937_64 engine_;
};

}  // namespace cbed
