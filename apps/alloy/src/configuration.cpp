#include "alloy/configuration.h"

#include <cmath>
#include <stdexcept>

namespace alloy {

Composition Composition::from_fractions(const std::vector<std::string>& species,
                                        const std::vector<double>& fractions, int64_t sites) {
  if (species.size() < 2 || species.size() > 4)
    throw std::invalid_argument("alloy: an alloy has 2 to 4 species, not " +
                                std::to_string(species.size()));
  if (fractions.size() != species.size())
    throw std::invalid_argument("alloy: " + std::to_string(species.size()) + " species but " +
                                std::to_string(fractions.size()) + " fractions");
  Composition c{species, {}};
  int64_t total = 0;
  for (size_t s = 0; s < species.size(); ++s) {
    const double exact = fractions[s] * static_cast<double>(sites);
    const int64_t count = std::llround(exact);
    if (fractions[s] < 0 || std::abs(exact - static_cast<double>(count)) > 1e-6)
      throw std::invalid_argument(
          "alloy: a fraction " + std::to_string(fractions[s]) + " of " + species[s] + " on " +
          std::to_string(sites) + " sites is " + std::to_string(exact) +
          " sites, not a whole number (nearest that fit: " + std::to_string(count) + "/" +
          std::to_string(sites) + ")");
    c.counts.push_back(count);
    total += count;
  }
  if (total != sites)
    throw std::invalid_argument("alloy: the fractions give " + std::to_string(total) +
                                " sites of " + std::to_string(sites) + " (they must sum to 1)");
  return c;
}

Occupation random_configuration(const Lattice& lattice, const Composition& composition, Rng& rng) {
  Occupation occupation;
  occupation.reserve(static_cast<size_t>(lattice.sites()));
  for (int s = 0; s < composition.size(); ++s)
    occupation.insert(occupation.end(), static_cast<size_t>(composition.counts[s]),
                      static_cast<uint8_t>(s));
  if (static_cast<int64_t>(occupation.size()) != lattice.sites())
    throw std::invalid_argument("alloy: the composition has " + std::to_string(occupation.size()) +
                                " sites, the lattice " + lattice.describe());
  for (size_t i = occupation.size(); i > 1; --i)  // Fisher–Yates
    std::swap(occupation[i - 1], occupation[rng.below(static_cast<uint32_t>(i))]);
  return occupation;
}

Occupation b2_configuration(const Lattice& lattice) {
  if (lattice.structure() != Structure::bcc)
    throw std::invalid_argument("alloy: B2 order is a bcc one, not " + lattice.describe());
  Occupation occupation(static_cast<size_t>(lattice.sites()));
  for (int64_t i = 0; i < lattice.sites(); ++i)
    occupation[static_cast<size_t>(i)] = static_cast<uint8_t>(lattice.sublattice(i));
  return occupation;
}

std::vector<int64_t> species_counts(const Occupation& occupation, int species) {
  std::vector<int64_t> counts(static_cast<size_t>(species), 0);
  for (const uint8_t s : occupation) {
    if (s >= species)
      throw std::invalid_argument("alloy: a site holds species " + std::to_string(s) + " of only " +
                                  std::to_string(species));
    ++counts[s];
  }
  return counts;
}

}  // namespace alloy
