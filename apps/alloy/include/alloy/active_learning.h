// The pieces of the active-learning loop that are not plumbing: choosing which sampled
// configurations go to the oracle (largest ensemble disagreement, no duplicates, spread over the
// temperatures), the fixed test set near Tc, and how many oracle calls one curve needs to reach
// another's error.
#pragma once

#include <cstdint>
#include <set>
#include <vector>

#include "alloy/configuration.h"
#include "alloy/lattice.h"
#include "alloy/pair_energy.h"

namespace alloy {

/// One sampled configuration: its temperature's index and the ensemble's spread on it.
struct Candidate {
  Occupation state;
  int temperature = 0;
  double spread = 0;
};

/// Up to `count` candidates, by decreasing spread within each temperature, taking the
/// temperatures in turn (so the picks spread over them); a state already in `known` or picked
/// once is skipped. Returns the picked states.
std::vector<Occupation> select_by_disagreement(std::vector<Candidate> candidates, int count,
                                               const std::set<Occupation>& known);

/// `count` configurations sampled by replica-exchange Monte Carlo under the exact `model` at
/// the temperatures `kts` (equal shares), after equilibration: a test set near Tc that no
/// surrogate trains on.
std::vector<Occupation> monte_carlo_test_set(const Lattice& lattice, const Composition& composition,
                                             const PairEnergy& model,
                                             const std::vector<double>& kts, int count,
                                             uint64_t seed);

/// The oracle calls at which a curve of test errors against calls (ascending calls) first
/// reaches `target`, interpolated linearly between points; −1 if it never does.
double calls_to_reach(const std::vector<double>& calls, const std::vector<double>& errors,
                      double target);

}  // namespace alloy
