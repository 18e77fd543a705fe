#include "alloy/descriptors.h"

namespace alloy {

std::vector<double> pair_counts(const Lattice& lattice, const Occupation& occupation, int species) {
  const int pairs = pair_count(species);
  std::vector<double> counts(static_cast<size_t>(feature_count(lattice, species)), 0.0);
  for (int s = 0; s < lattice.shells(); ++s)
    for (int64_t i = 0; i < lattice.sites(); ++i)
      for (const int32_t j : lattice.neighbours(s, i))
        if (j > i)  // each bond once (neighbour lists are symmetric)
          counts[static_cast<size_t>(s * pairs +
                                     pair_index(occupation[i], occupation[j], species))] += 1.0;
  return counts;
}

std::vector<double> swap_delta(const Lattice& lattice, const Occupation& occupation, int species,
                               int64_t i, int64_t j) {
  const int pairs = pair_count(species);
  std::vector<double> delta(static_cast<size_t>(feature_count(lattice, species)), 0.0);
  const int a = occupation[i], b = occupation[j];
  if (a == b) return delta;
  // Site i goes from a to b, site j from b to a; the i–j bond itself keeps its pair (a, b).
  auto move = [&](int64_t site, int64_t other, int from, int to) {
    for (int s = 0; s < lattice.shells(); ++s)
      for (const int32_t k : lattice.neighbours(s, site)) {
        if (k == other) continue;
        delta[static_cast<size_t>(s * pairs + pair_index(from, occupation[k], species))] -= 1.0;
        delta[static_cast<size_t>(s * pairs + pair_index(to, occupation[k], species))] += 1.0;
      }
  };
  move(i, j, a, b);
  move(j, i, b, a);
  return delta;
}

std::vector<float> one_hot(const Occupation& occupation, int species) {
  std::vector<float> out(occupation.size() * static_cast<size_t>(species), 0.0f);
  for (size_t i = 0; i < occupation.size(); ++i) out[i * species + occupation[i]] = 1.0f;
  return out;
}

}  // namespace alloy
