#include "alloy/pair_energy.h"

#include <cmath>
#include <stdexcept>
#include <string>

#include "alloy/descriptors.h"

namespace alloy {

PairEnergy::PairEnergy(PairMatrices v, double e0) : e0_(e0) {
  shells_ = static_cast<int>(v.size());
  if (shells_ < 1 || shells_ > 6)
    throw std::invalid_argument("alloy: a pair model has 1 to 6 shells, not " +
                                std::to_string(shells_));
  species_ = static_cast<int>(v[0].size());
  if (species_ < 2 || species_ > 4)
    throw std::invalid_argument("alloy: a pair model has 2 to 4 species, not " +
                                std::to_string(species_));
  v_.resize(static_cast<size_t>(shells_) * species_ * species_);
  for (int s = 0; s < shells_; ++s) {
    if (static_cast<int>(v[s].size()) != species_)
      throw std::invalid_argument("alloy: shell " + std::to_string(s + 1) +
                                  " of the pair model has " + std::to_string(v[s].size()) +
                                  " rows, not " + std::to_string(species_));
    for (int a = 0; a < species_; ++a) {
      if (static_cast<int>(v[s][a].size()) != species_)
        throw std::invalid_argument("alloy: shell " + std::to_string(s + 1) + ", row " +
                                    std::to_string(a) + " of the pair model has " +
                                    std::to_string(v[s][a].size()) + " entries, not " +
                                    std::to_string(species_));
      for (int b = 0; b < species_; ++b) {
        if (!std::isfinite(v[s][a][b]) || v[s][a][b] != v[s][b][a])
          throw std::invalid_argument("alloy: V of shell " + std::to_string(s + 1) +
                                      " must be finite and symmetric (entry " + std::to_string(a) +
                                      "," + std::to_string(b) + ")");
        v_[index(s, a, b)] = v[s][a][b];
      }
    }
  }
}

PairEnergy PairEnergy::ising(const std::vector<double>& v_per_shell) {
  PairMatrices v;
  for (const double vs : v_per_shell) v.push_back({{vs, -vs}, {-vs, vs}});
  return PairEnergy(std::move(v));
}

PairEnergy PairEnergy::from_feature_weights(const std::vector<double>& weights, int shells,
                                            int species, double e0) {
  const int pairs = pair_count(species);
  if (static_cast<int64_t>(weights.size()) != int64_t{shells} * pairs)
    throw std::invalid_argument("alloy: " + std::to_string(weights.size()) + " weights for " +
                                std::to_string(shells) + " shells of " + std::to_string(pairs) +
                                " species pairs");
  PairMatrices v(
      static_cast<size_t>(shells),
      std::vector<std::vector<double>>(static_cast<size_t>(species),
                                       std::vector<double>(static_cast<size_t>(species))));
  for (int s = 0; s < shells; ++s)
    for (int a = 0; a < species; ++a)
      for (int b = 0; b < species; ++b)
        v[s][a][b] = weights[static_cast<size_t>(s * pairs + pair_index(a, b, species))];
  return PairEnergy(std::move(v), e0);
}

std::vector<double> PairEnergy::feature_weights() const {
  const int pairs = pair_count(species_);
  std::vector<double> w(static_cast<size_t>(shells_) * pairs);
  for (int s = 0; s < shells_; ++s)
    for (int a = 0; a < species_; ++a)
      for (int b = a; b < species_; ++b) w[s * pairs + pair_index(a, b, species_)] = v(s, a, b);
  return w;
}

double PairEnergy::energy(const Lattice& lattice, const Occupation& occupation) const {
  if (lattice.shells() < shells_)
    throw std::invalid_argument("alloy: a pair model of " + std::to_string(shells_) +
                                " shells on a lattice of " + std::to_string(lattice.shells()));
  double e = 0.0;
  for (int s = 0; s < shells_; ++s)
    for (int64_t i = 0; i < lattice.sites(); ++i) {
      const double* row = &v_[index(s, occupation[i], 0)];
      for (const int32_t j : lattice.neighbours(s, i)) e += row[occupation[j]];
    }
  return e0_ + 0.5 * e;  // every bond was seen from both ends
}

double PairEnergy::swap_change(const Lattice& lattice, const Occupation& occupation, int64_t i,
                               int64_t j) const {
  const int a = occupation[i], b = occupation[j];
  if (a == b) return 0.0;
  // Site i turns from a to b and j from b to a: each bond to a third site k changes by
  // V(new, o_k) − V(old, o_k). The sums below also count the i–j bond (if i and j are in a shell
  // of each other) as if its other end stayed; that bond's pair (a, b) does not change, so its two
  // terms are taken back.
  double change = 0.0;
  for (int s = 0; s < shells_; ++s) {
    const double* va = &v_[index(s, a, 0)];
    const double* vb = &v_[index(s, b, 0)];
    double side = 0.0;
    bool bonded = false;
    for (const int32_t k : lattice.neighbours(s, i)) {
      side += vb[occupation[k]] - va[occupation[k]];
      bonded |= (k == j);
    }
    for (const int32_t k : lattice.neighbours(s, j)) side -= vb[occupation[k]] - va[occupation[k]];
    // Taken back: from i's sum V(b, b) − V(a, b), from j's −(V(b, a) − V(a, a)).
    if (bonded) side -= (vb[b] - va[b]) - (vb[a] - va[a]);
    change += side;
  }
  return change;
}

}  // namespace alloy
