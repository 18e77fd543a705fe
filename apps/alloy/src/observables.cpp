#include "alloy/observables.h"

#include <cmath>
#include <stdexcept>

namespace alloy {

double b2_order(const Lattice& lattice, const Occupation& occupation) {
  if (lattice.structure() != Structure::bcc)
    throw std::invalid_argument("alloy: B2 order is measured on bcc, not " + lattice.describe());
  int64_t sum = 0;
  for (int64_t i = 0; i < lattice.sites(); ++i) {
    const int sigma = occupation[i] == 0 ? 1 : -1;
    sum += (i & 1) ? -sigma : sigma;  // bcc: odd sites are sublattice 1 (lattice.h's indexing)
  }
  return static_cast<double>(sum) / static_cast<double>(lattice.sites());
}

double long_range_order(const Lattice& lattice, const Occupation& occupation, int species) {
  if (static_cast<int64_t>(occupation.size()) != lattice.sites())
    throw std::invalid_argument("alloy: long-range order of " + std::to_string(occupation.size()) +
                                " sites on " + lattice.describe());
  // counts[sublattice × species]
  const int basis = lattice.basis_size();
  std::vector<int64_t> counts(static_cast<size_t>(basis * species), 0);
  for (int64_t i = 0; i < lattice.sites(); ++i) {
    if (occupation[i] >= species)
      throw std::invalid_argument("alloy: species " + std::to_string(occupation[i]) + " on site " +
                                  std::to_string(i) + " of a " + std::to_string(species) +
                                  "-species configuration");
    ++counts[static_cast<size_t>(lattice.sublattice(i) * species + occupation[i])];
  }
  // The splits: a bit mask of the sublattices in half A (the rest are half B).
  const std::vector<unsigned> splits = lattice.structure() == Structure::bcc
                                           ? std::vector<unsigned>{0b01}
                                           : std::vector<unsigned>{0b1001, 0b0101, 0b0011};
  const double half_sites = static_cast<double>(lattice.sites()) / 2;
  double sum_m2 = 0;
  for (const unsigned in_a : splits) {
    double m = 0;
    for (int s = 0; s < species; ++s) {
      int64_t a = 0, b = 0;
      for (int l = 0; l < basis; ++l)
        ((in_a >> l) & 1u ? a : b) += counts[static_cast<size_t>(l * species + s)];
      m += std::abs(static_cast<double>(a - b)) / half_sites;
    }
    sum_m2 += 0.25 * m * m;
  }
  return std::sqrt(sum_m2);
}

std::vector<double> short_range_order(const Lattice& lattice, const Occupation& occupation) {
  int64_t ones = 0;
  for (const uint8_t s : occupation) ones += s == 1;
  const double c1 = static_cast<double>(ones) / static_cast<double>(occupation.size());
  std::vector<double> alpha(static_cast<size_t>(lattice.shells()), 0.0);
  if (c1 <= 0.0 || c1 >= 1.0) return alpha;
  for (int s = 0; s < lattice.shells(); ++s) {
    int64_t unlike = 0, from_zero = 0;
    for (int64_t i = 0; i < lattice.sites(); ++i) {
      if (occupation[i] != 0) continue;
      for (const int32_t j : lattice.neighbours(s, i)) unlike += occupation[j] == 1;
      from_zero += lattice.shell(s).coordination;
    }
    alpha[s] = 1.0 - static_cast<double>(unlike) / static_cast<double>(from_zero) / c1;
  }
  return alpha;
}

namespace {

// The estimates of one set of sums: energy per site, heat capacity, ⟨|m|⟩, Binder cumulant.
std::array<double, 4> estimates(const std::array<double, 6>& s, double kt, int64_t sites) {
  const double n = s[0], e = s[1] / n, e2 = s[2] / n, m = s[3] / n, m2 = s[4] / n, m4 = s[5] / n;
  const double sites_d = static_cast<double>(sites);
  return {e / sites_d, (e2 - e * e) / (sites_d * kt * kt), m,
          m2 > 0 ? 1.0 - m4 / (3.0 * m2 * m2) : 0.0};
}

}  // namespace

ThermoPoint thermo_point(const ThermoSums& sums, double kt, int64_t sites) {
  ThermoPoint p;
  p.kt = kt;
  std::array<double, 6> all{};
  int used = 0;
  for (const auto& b : sums.blocks) {
    if (b[0] == 0) continue;
    for (int k = 0; k < 6; ++k) all[k] += b[k];
    ++used;
  }
  if (all[0] == 0) return p;
  p.samples = static_cast<int64_t>(all[0]);
  const std::array<double, 4> whole = estimates(all, kt, sites);
  p.energy = whole[0];
  p.heat_capacity = whole[1];
  p.order = whole[2];
  p.binder = whole[3];
  if (used > 1) {  // standard error of the mean over the blocks' estimates
    std::array<double, 4> spread{};
    for (const auto& b : sums.blocks) {
      if (b[0] == 0) continue;
      const std::array<double, 4> one = estimates(b, kt, sites);
      for (int k = 0; k < 4; ++k) spread[k] += (one[k] - whole[k]) * (one[k] - whole[k]);
    }
    const double scale = 1.0 / (used * (used - 1.0));
    p.energy_error = std::sqrt(spread[0] * scale);
    p.heat_capacity_error = std::sqrt(spread[1] * scale);
    p.order_error = std::sqrt(spread[2] * scale);
    p.binder_error = std::sqrt(spread[3] * scale);
  }
  for (const double a : sums.sro_sum)
    p.sro.push_back(sums.sro_count > 0 ? a / sums.sro_count : 0.0);
  return p;
}

}  // namespace alloy
