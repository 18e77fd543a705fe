#include "alloy/lattice.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <stdexcept>

namespace alloy {
namespace {

// Coordinates are in half lattice constants, so every site of either structure has integer ones.
using Half = std::array<int, 3>;

std::vector<Half> basis_of(Structure s) {
  if (s == Structure::bcc) return {{0, 0, 0}, {1, 1, 1}};
  return {{0, 0, 0}, {0, 1, 1}, {1, 0, 1}, {1, 1, 0}};
}

// Whether a displacement (half units) joins two sites of the structure.
bool is_lattice_vector(Structure s, const Half& d) {
  if (s == Structure::bcc)  // all three even or all three odd
    return (d[0] & 1) == (d[1] & 1) && (d[1] & 1) == (d[2] & 1);
  return ((d[0] + d[1] + d[2]) & 1) == 0;  // fcc: an even sum
}

int wrap(int x, int period) {
  return ((x % period) + period) % period;
}

}  // namespace

Structure parse_structure(const std::string& name) {
  if (name == "bcc") return Structure::bcc;
  if (name == "fcc") return Structure::fcc;
  throw std::invalid_argument("alloy: unknown structure '" + name + "' (known: bcc, fcc)");
}

const char* structure_name(Structure s) {
  return s == Structure::bcc ? "bcc" : "fcc";
}

Lattice::Lattice(Structure structure, int cells, int shells)
    : structure_(structure), cells_(cells) {
  if (shells < 1 || shells > 6)
    throw std::invalid_argument("alloy: a lattice has 1 to 6 neighbour shells, not " +
                                std::to_string(shells));
  if (cells < 1 || cells > 256)
    throw std::invalid_argument("alloy: cells must be 1 to 256 a side, not " +
                                std::to_string(cells));
  const std::vector<Half> basis = basis_of(structure);
  basis_size_ = static_cast<int>(basis.size());
  sites_ = int64_t{cells} * cells * cells * basis_size_;

  // The displacements of the first `shells` distances, grouped by squared length.
  std::map<int, std::vector<Half>> by_length;
  constexpr int kReach = 6;  // half units: the 6th shell of either structure is within 4
  for (int x = -kReach; x <= kReach; ++x)
    for (int y = -kReach; y <= kReach; ++y)
      for (int z = -kReach; z <= kReach; ++z) {
        const Half d{x, y, z};
        if ((x || y || z) && is_lattice_vector(structure, d))
          by_length[x * x + y * y + z * z].push_back(d);
      }
  std::vector<std::vector<Half>> shell_vectors;
  for (auto it = by_length.begin(); it != by_length.end() && shell_vectors.size() < size_t(shells);
       ++it) {
    shells_.push_back({std::sqrt(it->first) / 2.0, static_cast<int>(it->second.size())});
    shell_vectors.push_back(it->second);
  }

  // Site index of half-unit coordinates (periodic): ((cx·L + cy)·L + cz)·basis + b.
  const int period = 2 * cells;
  auto index_of = [&](const Half& h) -> int64_t {
    Half w{wrap(h[0], period), wrap(h[1], period), wrap(h[2], period)};
    const Half offset{w[0] & 1, w[1] & 1, w[2] & 1};
    const int b = static_cast<int>(std::find(basis.begin(), basis.end(), offset) - basis.begin());
    return ((int64_t{w[0] / 2} * cells + w[1] / 2) * cells + w[2] / 2) * basis_size_ + b;
  };
  neighbours_.resize(shell_vectors.size());
  for (size_t s = 0; s < shell_vectors.size(); ++s)
    neighbours_[s].reserve(static_cast<size_t>(sites_) * shell_vectors[s].size());
  for (int64_t site = 0; site < sites_; ++site) {
    const Half h = [&] {
      const std::array<double, 3> p = position(site);
      return Half{static_cast<int>(std::lround(2 * p[0])), static_cast<int>(std::lround(2 * p[1])),
                  static_cast<int>(std::lround(2 * p[2]))};
    }();
    std::set<int64_t> seen{site};  // a site meets each other site in at most one shell, once
    for (size_t s = 0; s < shell_vectors.size(); ++s)
      for (const Half& d : shell_vectors[s]) {
        const int64_t j = index_of({h[0] + d[0], h[1] + d[1], h[2] + d[2]});
        if (!seen.insert(j).second) {
          // Two displacements meet only if they differ by a multiple of the period in every
          // component: with every component within ±m, a period above 2m keeps them apart.
          int m = 0;
          for (const auto& vectors : shell_vectors)
            for (const Half& v : vectors)
              m = std::max({m, std::abs(v[0]), std::abs(v[1]), std::abs(v[2])});
          const int fits = m + 1;
          throw std::invalid_argument(
              "alloy: " + std::string(structure_name(structure)) + " with " +
              std::to_string(cells) + " cells a side is too small for " + std::to_string(shells) +
              " neighbour shells (a site meets its own periodic image); use at least " +
              std::to_string(fits) + " cells");
        }
        neighbours_[s].push_back(static_cast<int32_t>(j));
      }
  }
}

std::array<double, 3> Lattice::position(int64_t site) const {
  const std::vector<Half> basis = basis_of(structure_);
  const int b = static_cast<int>(site % basis_size_);
  const int64_t cell = site / basis_size_;
  const int64_t cz = cell % cells_, cy = (cell / cells_) % cells_,
                cx = cell / (int64_t{cells_} * cells_);
  return {static_cast<double>(cx) + basis[b][0] / 2.0, static_cast<double>(cy) + basis[b][1] / 2.0,
          static_cast<double>(cz) + basis[b][2] / 2.0};
}

std::string Lattice::describe() const {
  const std::string l = std::to_string(cells_);
  return std::string(structure_name(structure_)) + " " + l + "x" + l + "x" + l + " (" +
         std::to_string(sites_) + " sites, " + std::to_string(shells()) + " shells)";
}

}  // namespace alloy
