// Descriptors of a configuration for the surrogates: per-shell pair-correlation counts (the
// cluster-expansion features: for each shell s and species pair a ≤ b, the bonds of that shell
// joining an a and a b) and the raw occupation, one-hot per site (for a network that learns its
// own features). A swap of two sites changes only the bonds around them: swap_delta() gives the
// change of every pair count without recounting.
#pragma once

#include <cstdint>
#include <utility>
#include <vector>

#include "alloy/configuration.h"
#include "alloy/lattice.h"

namespace alloy {

/// Species pairs a ≤ b of `species` species: species·(species+1)/2.
inline int pair_count(int species) {
  return species * (species + 1) / 2;
}
/// Index of the pair (a, b) (either order) among pair_count(species): row-major over a ≤ b.
inline int pair_index(int a, int b, int species) {
  if (a > b) std::swap(a, b);
  return a * species - a * (a - 1) / 2 + (b - a);
}

/// The features' length: shells × pair_count(species).
inline int64_t feature_count(const Lattice& lattice, int species) {
  return int64_t{lattice.shells()} * pair_count(species);
}

/// Bonds per shell and species pair: [shells × pairs], feature s·pairs + pair_index(a, b).
std::vector<double> pair_counts(const Lattice& lattice, const Occupation& occupation, int species);

/// How pair_counts() changes when the species of sites i and j are exchanged ([shells × pairs],
/// mostly zeros), from the neighbours of i and j only.
std::vector<double> swap_delta(const Lattice& lattice, const Occupation& occupation, int species,
                               int64_t i, int64_t j);

/// The occupation one-hot per site: [sites × species], 1 where the site holds that species.
std::vector<float> one_hot(const Occupation& occupation, int species);

}  // namespace alloy
