// The 2-D Ising model on an L x L periodic square lattice, H = -J sum_<ij> s_i s_j over nearest
// neighbours (2 L^2 bonds: each site to its right and lower neighbour), with single spin flips as
// moves: the test system for the Monte Carlo (its exact density of states is known by brute force
// for small L, and Onsager's Tc for large). Sites are row-major, i * L + j.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "alloy/walkable.h"

namespace alloy {

class Ising2d : public WalkableSystem {
 public:
  /// L x L spins, all +1 (the ground state for J > 0). Throws an exadnn::Error unless
  /// L is in [2, 4096] and J is finite.
  explicit Ising2d(int L, double J = 1.0);

  /// -J times the bond sum (0.0 - x, so that a zero energy is +0, not -0).
  double energy() const override { return 0.0 - coupling_ * static_cast<double>(bond_sum_); }
  /// Draws a site and returns the energy change of flipping it.
  double propose(Rng& rng) override;
  /// Flips the site the last propose() drew (once; throws an exadnn::Error without a proposal).
  void accept() override;
  int64_t sites() const override { return static_cast<int64_t>(spins_.size()); }

  int size() const { return size_; }
  double coupling() const { return coupling_; }
  int spin(int site) const { return spins_[static_cast<size_t>(site)]; }
  const std::vector<int8_t>& spins() const { return spins_; }
  /// Sets all L^2 spins (each +1 or -1).
  void set_spins(const std::vector<int8_t>& spins);
  /// sum_i s_i
  int64_t magnetization() const;

 private:
  int neighbour_sum(int site) const;

  int size_;
  double coupling_;
  std::vector<int8_t> spins_;
  std::vector<int> neighbours_;  // up, down, left, right of each site: 4 per site
  int64_t bond_sum_ = 0;         // sum_<ij> s_i s_j: the energy is exact, with no rounding drift
  int proposed_ = -1;            // the site of the pending proposal, -1 for none
  int proposed_bond_change_ = 0;
};

/// One energy level of a finite system: its energy and how many states have it.
struct EnergyLevel {
  double energy = 0;
  uint64_t count = 0;
};

/// The exact density of states of the L x L periodic Ising model by enumerating all 2^(L^2)
/// states (in Gray-code order: one spin flip per state), the levels sorted by energy; the counts
/// sum to 2^(L^2). Throws an exadnn::Error unless 2 <= L, L^2 <= 30 and J is finite and nonzero.
std::vector<EnergyLevel> ising2d_exact_levels(int L, double J = 1.0);

}  // namespace alloy
