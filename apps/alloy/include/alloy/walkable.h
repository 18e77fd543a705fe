// What a Monte Carlo walker needs of a system: its energy, a random local move with the energy
// change it would make, and applying that move. Kawasaki swaps of an alloy configuration
// (monte_carlo.h) and spin flips of the test Ising lattices implement it; Wang–Landau
// (wang_landau.h) walks any of them.
#pragma once

#include <cstdint>

#include "alloy/rng.h"

namespace alloy {

class WalkableSystem {
 public:
  virtual ~WalkableSystem() = default;
  /// The current total energy.
  virtual double energy() const = 0;
  /// Draws a random move and returns the energy change it would make; the system is unchanged
  /// until accept().
  virtual double propose(Rng& rng) = 0;
  /// Applies the move the last propose() drew (energy() then includes its change).
  virtual void accept() = 0;
  /// Sites (for per-site figures and sweeps: one sweep is sites() proposals).
  virtual int64_t sites() const = 0;
};

}  // namespace alloy
