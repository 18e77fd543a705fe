// Multi-shell effective pair interactions: E = E0 + Σ_shells Σ_bonds V_s(a, b), one symmetric
// species × species matrix V_s per neighbour shell. It is both the exact test oracle (given V) and
// the linear surrogate (V fitted to oracle energies on the pair-count features: a linear model of
// those features is exactly a pair model). A swap's energy change needs the neighbours of the two
// sites only.
#pragma once

#include <cstdint>
#include <vector>

#include "alloy/configuration.h"
#include "alloy/lattice.h"

namespace alloy {

/// Pair interactions per shell: [shells][species][species] in eV.
using PairMatrices = std::vector<std::vector<std::vector<double>>>;

class PairEnergy {
 public:
  /// `v` symmetric in the species; `e0` a constant (eV).
  explicit PairEnergy(PairMatrices v, double e0 = 0.0);
  /// Two species with spin variables σ = +1 (species 0), −1 (species 1):
  /// E = Σ_s V_s Σ_{bonds of shell s} σ_i σ_j. V_1 > 0 favours unlike nearest neighbours (B2 on
  /// bcc; the antiferromagnetic Ising model, kTc/V_1 = 6.3544 on bcc for V_1 alone).
  static PairEnergy ising(const std::vector<double>& v_per_shell);
  /// A linear model of pair_counts() features: weight s·pairs + pair_index(a, b) is V_s(a, b).
  static PairEnergy from_feature_weights(const std::vector<double>& weights, int shells,
                                         int species, double e0);

  int shells() const { return shells_; }
  int species() const { return species_; }
  double v(int shell, int a, int b) const { return v_[index(shell, a, b)]; }
  double e0() const { return e0_; }
  /// The weights of pair_counts() features this model is (inverse of from_feature_weights).
  std::vector<double> feature_weights() const;

  /// Total energy (eV); the lattice needs at least this model's shells.
  double energy(const Lattice& lattice, const Occupation& occupation) const;
  /// Energy change when the species of sites i and j are exchanged (eV): O(neighbours of i, j).
  double swap_change(const Lattice& lattice, const Occupation& occupation, int64_t i,
                     int64_t j) const;

 private:
  size_t index(int s, int a, int b) const {
    return (static_cast<size_t>(s) * species_ + a) * species_ + b;
  }
  int shells_, species_;
  std::vector<double> v_;  // [shells × species × species]
  double e0_;
};

}  // namespace alloy
