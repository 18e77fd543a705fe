#include "alloy/active_learning.h"

#include <algorithm>
#include <map>
#include <stdexcept>

#include "alloy/replica_exchange.h"

namespace alloy {

std::vector<Occupation> select_by_disagreement(std::vector<Candidate> candidates, int count,
                                               const std::set<Occupation>& known) {
  std::map<int, std::vector<Candidate>> by_temperature;
  for (Candidate& c : candidates) by_temperature[c.temperature].push_back(std::move(c));
  for (auto& [t, list] : by_temperature)
    std::stable_sort(list.begin(), list.end(),
                     [](const Candidate& a, const Candidate& b) { return a.spread > b.spread; });
  std::vector<Occupation> picked;
  std::set<Occupation> seen = known;
  std::map<int, size_t> next;  // per temperature: the next candidate to look at
  bool any = true;
  while (static_cast<int>(picked.size()) < count && any) {
    any = false;
    for (auto& [t, list] : by_temperature) {
      size_t& k = next[t];
      while (k < list.size() && seen.count(list[k].state)) ++k;
      if (k == list.size()) continue;
      any = true;
      seen.insert(list[k].state);
      picked.push_back(list[k].state);
      ++k;
      if (static_cast<int>(picked.size()) == count) break;
    }
  }
  return picked;
}

std::vector<Occupation> monte_carlo_test_set(const Lattice& lattice, const Composition& composition,
                                             const PairEnergy& model,
                                             const std::vector<double>& kts, int count,
                                             uint64_t seed) {
  if (count < 1 || kts.empty())
    throw std::invalid_argument("alloy: a test set needs 1 or more states and temperatures");
  const PairSwapEnergy exact(model);
  ReplicaExchangeOptions o;
  o.temperatures = kts;
  o.equilibration_sweeps = 500;
  const int64_t per_temperature =
      (count + static_cast<int64_t>(kts.size()) - 1) / static_cast<int64_t>(kts.size());
  o.snapshot_every = 20;  // well apart: nearly independent states
  o.measurement_sweeps = std::max<int64_t>(per_temperature * o.snapshot_every, 20);
  o.blocks = 2;
  o.seed = seed;
  std::vector<Occupation> states;
  o.on_snapshot = [&](int, const Occupation& state, double) { states.push_back(state); };
  replica_exchange(lattice, composition, exact, o);
  if (static_cast<int>(states.size()) > count) states.resize(static_cast<size_t>(count));
  return states;
}

double calls_to_reach(const std::vector<double>& calls, const std::vector<double>& errors,
                      double target) {
  for (size_t k = 0; k < errors.size(); ++k) {
    if (errors[k] > target) continue;
    if (k == 0) return calls[0];
    const double w = (errors[k - 1] - target) / (errors[k - 1] - errors[k]);
    return calls[k - 1] + w * (calls[k] - calls[k - 1]);
  }
  return -1.0;
}

}  // namespace alloy
