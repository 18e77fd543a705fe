// An alloy configuration: which species occupies each site of a lattice (species 0..n-1, n = 2 to
// 4), at a composition fixed for the run, and the configurations the checks start from.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "alloy/lattice.h"
#include "alloy/rng.h"

namespace alloy {

/// The species on each site: [sites] of 0..species-1.
using Occupation = std::vector<uint8_t>;

/// The species of a run and how many sites each holds.
struct Composition {
  std::vector<std::string> species;  ///< names ("Ni", "Al"), 2 to 4 of them
  std::vector<int64_t> counts;       ///< sites per species, summing to the lattice's sites

  int size() const { return static_cast<int>(species.size()); }
  /// Fractions (summing to 1) on `sites` sites: an error when a count would not be whole, naming
  /// the species and the nearest compositions that fit.
  static Composition from_fractions(const std::vector<std::string>& species,
                                    const std::vector<double>& fractions, int64_t sites);
};

/// A random configuration of that composition (a shuffle of the species' sites).
Occupation random_configuration(const Lattice& lattice, const Composition& composition, Rng& rng);

/// bcc, two species at 50/50: species 0 on sublattice 0 (corners), species 1 on sublattice 1 —
/// the B2 (CsCl) order.
Occupation b2_configuration(const Lattice& lattice);

/// The species' site counts of a configuration; an error if one is out of 0..species-1.
std::vector<int64_t> species_counts(const Occupation& occupation, int species);

}  // namespace alloy
