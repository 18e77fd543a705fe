// The Monte Carlo's random numbers: xoshiro256** (Blackman and Vigna 2018) seeded through
// SplitMix64, so a seed gives the same stream on every platform and compiler (the standard
// library's distributions are implementation-defined), and a draw costs a few cycles.
#pragma once

#include <cstdint>

namespace alloy {

class Rng {
 public:
  explicit Rng(uint64_t seed = 0) {
    for (uint64_t& word : s_) {  // SplitMix64 spreads any seed (0 too) over the 256-bit state
      seed += 0x9e3779b97f4a7c15ull;
      uint64_t z = seed;
      z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
      z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
      word = z ^ (z >> 31);
    }
  }
  /// The next 64 random bits.
  uint64_t next() {
    const uint64_t result = rotl(s_[1] * 5, 7) * 9;
    const uint64_t t = s_[1] << 17;
    s_[2] ^= s_[0];
    s_[3] ^= s_[1];
    s_[1] ^= s_[2];
    s_[0] ^= s_[3];
    s_[2] ^= t;
    s_[3] = rotl(s_[3], 45);
    return result;
  }
  /// Uniform in [0, 1) with 53 random bits.
  double uniform() { return static_cast<double>(next() >> 11) * 0x1.0p-53; }
  /// Uniform in [0, n) for n > 0 (Lemire's multiply-shift; the bias is below 2^-32 for n < 2^32).
  uint32_t below(uint32_t n) {
    return static_cast<uint32_t>(((next() >> 32) * static_cast<uint64_t>(n)) >> 32);
  }

 private:
  static uint64_t rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }
  uint64_t s_[4];
};

}  // namespace alloy
