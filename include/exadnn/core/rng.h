// Generator: a seeded, counter-based random source. Element i of a draw depends only on
// (seed, offset + i), so results are identical for any thread count, and the state is two numbers
// that checkpoints can store.
#pragma once

#include <atomic>
#include <cstdint>

namespace exadnn {

/// Counter-based pseudo-random generator (SplitMix64 over a 64-bit counter).
class Generator {
 public:
  explicit Generator(uint64_t seed = 0x5eed) : seed_(seed) {}
  Generator(const Generator& other) : seed_(other.seed_), offset_(other.offset()) {}
  Generator& operator=(const Generator& other) {
    set_state(other.seed_, other.offset());
    return *this;
  }
  void manual_seed(uint64_t seed) { set_state(seed, 0); }
  uint64_t seed() const { return seed_; }
  /// Number of 64-bit values consumed so far.
  uint64_t offset() const { return offset_.load(std::memory_order_relaxed); }
  void set_state(uint64_t seed, uint64_t offset) {
    seed_ = seed;
    offset_.store(offset, std::memory_order_relaxed);
  }
  /// Reserves n consecutive counters and returns the first. Safe to call from several threads
  /// at once (each gets its own counters; e.g. dropout in the workers of async::AsyncTrainer);
  /// seeding while another thread draws is not.
  uint64_t advance(uint64_t n) { return offset_.fetch_add(n, std::memory_order_relaxed); }
  /// The 64-bit random value at counter c.
  uint64_t bits_at(uint64_t c) const noexcept {
    uint64_t z = seed_ * 0x9e3779b97f4a7c15ull + (c + 1) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
  }
  /// Uniform double in [0, 1) at counter c (53 random bits).
  double uniform_at(uint64_t c) const noexcept {
    return static_cast<double>(bits_at(c) >> 11) * 0x1.0p-53;
  }
  /// Next uniform double in [0, 1).
  double uniform() { return uniform_at(advance(1)); }

 private:
  uint64_t seed_;
  std::atomic<uint64_t> offset_{0};
};

/// The process-wide default generator.
Generator& default_generator();
/// Seeds the default generator.
void manual_seed(uint64_t seed);

}  // namespace exadnn
