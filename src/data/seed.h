// Seed derivation for the data layer: independent streams from (seed, purpose, epoch, batch).
#pragma once

#include <cstdint>

namespace exadnn::data::internal {

/// SplitMix64's finaliser: a bijective scramble of 64 bits.
inline uint64_t mix64(uint64_t z) noexcept {
  z += 0x9e3779b97f4a7c15ull;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

/// A seed that depends on both inputs, in order.
inline uint64_t combine_seed(uint64_t seed, uint64_t value) noexcept {
  return mix64(seed ^ mix64(value + 0x632be59bd9b4e019ull));
}

/// Uniform integer in [0, n) from 64 random bits (Lemire's multiply-shift).
inline uint64_t bounded(uint64_t bits, uint64_t n) noexcept {
  return static_cast<uint64_t>((static_cast<unsigned __int128>(bits) * n) >> 64);
}

}  // namespace exadnn::data::internal
