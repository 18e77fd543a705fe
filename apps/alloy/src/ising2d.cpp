#include "alloy/ising2d.h"

#include <exadnn/core/error.h>

#include <algorithm>
#include <bit>
#include <cmath>

namespace alloy {

namespace {

constexpr const char* kWhere = "alloy::Ising2d";

// The sum of a site's four neighbours' spins, for spins in a row-major L x L periodic grid.
template <class Spin>
int local_field(const Spin* s, int L, int site) {
  const int i = site / L, j = site % L;
  const int up = ((i + L - 1) % L) * L + j, down = ((i + 1) % L) * L + j;
  const int left = i * L + (j + L - 1) % L, right = i * L + (j + 1) % L;
  return s[up] + s[down] + s[left] + s[right];
}

// L, checked before anything is allocated.
int checked_size(int L) {
  EXADNN_CHECK(L >= 2 && L <= 4096, kWhere, "L = ", L, " must be in [2, 4096]");
  return L;
}

}  // namespace

Ising2d::Ising2d(int L, double J)
    : size_(checked_size(L)), coupling_(J), spins_(static_cast<size_t>(L) * L, 1) {
  EXADNN_CHECK(std::isfinite(J), kWhere, "J = ", J, " must be finite");
  bond_sum_ = 2 * sites();  // all spins aligned: every bond +1
  neighbours_.reserve(4 * spins_.size());
  for (int site = 0; site < L * L; ++site) {
    const int i = site / L, j = site % L;
    for (const int k : {((i + L - 1) % L) * L + j, ((i + 1) % L) * L + j, i * L + (j + L - 1) % L,
                        i * L + (j + 1) % L})
      neighbours_.push_back(k);
  }
}

int Ising2d::neighbour_sum(int site) const {
  const int* k = neighbours_.data() + 4 * static_cast<size_t>(site);
  return spins_[k[0]] + spins_[k[1]] + spins_[k[2]] + spins_[k[3]];
}

double Ising2d::propose(Rng& rng) {
  proposed_ = static_cast<int>(rng.below(static_cast<uint32_t>(spins_.size())));
  // Flipping s_i changes each of its four bonds s_i s_k by -2 s_i s_k.
  proposed_bond_change_ = -2 * spins_[static_cast<size_t>(proposed_)] * neighbour_sum(proposed_);
  return -coupling_ * proposed_bond_change_;
}

void Ising2d::accept() {
  EXADNN_CHECK(proposed_ >= 0, kWhere, "accept() without a pending propose()");
  spins_[static_cast<size_t>(proposed_)] = static_cast<int8_t>(-spins_[proposed_]);
  bond_sum_ += proposed_bond_change_;
  proposed_ = -1;
}

void Ising2d::set_spins(const std::vector<int8_t>& spins) {
  EXADNN_CHECK(spins.size() == spins_.size(), kWhere, "set_spins got ", spins.size(), " spins for ",
               size_, " x ", size_, " sites");
  for (const int8_t s : spins)
    EXADNN_CHECK(s == 1 || s == -1, kWhere, "set_spins got a spin ", int{s}, "; spins are +-1");
  spins_ = spins;
  bond_sum_ = 0;
  for (int site = 0; site < static_cast<int>(spins_.size()); ++site) {
    const int i = site / size_, j = site % size_;
    bond_sum_ += spins_[site] *
                 (spins_[i * size_ + (j + 1) % size_] + spins_[((i + 1) % size_) * size_ + j]);
  }
  proposed_ = -1;
}

int64_t Ising2d::magnetization() const {
  int64_t m = 0;
  for (const int8_t s : spins_) m += s;
  return m;
}

std::vector<EnergyLevel> ising2d_exact_levels(int L, double J) {
  EXADNN_CHECK(L >= 2 && L * L <= 30, "alloy::ising2d_exact_levels", "L = ", L,
               " must be >= 2 with L^2 <= 30 (2^(L^2) states are enumerated)");
  EXADNN_CHECK(std::isfinite(J) && J != 0, "alloy::ising2d_exact_levels", "J = ", J,
               " must be finite and nonzero");
  const int n = L * L;
  // counts[b + 2n] for the bond sum b in [-2n, 2n]
  std::vector<uint64_t> counts(static_cast<size_t>(4 * n + 1), 0);
  std::vector<int> s(static_cast<size_t>(n), 1);
  int64_t bonds = 2 * n;
  ++counts[static_cast<size_t>(bonds + 2 * n)];
  // Gray code: state k differs from state k - 1 in bit ctz(k), so each step is one flip.
  for (uint64_t k = 1; k < (uint64_t{1} << n); ++k) {
    const int site = std::countr_zero(k);
    bonds -= 2 * s[static_cast<size_t>(site)] * local_field(s.data(), L, site);
    s[static_cast<size_t>(site)] = -s[static_cast<size_t>(site)];
    ++counts[static_cast<size_t>(bonds + 2 * n)];
  }
  std::vector<EnergyLevel> levels;
  for (int b = 2 * n; b >= -2 * n; --b)  // E = -J b: ascending for J > 0
    if (counts[static_cast<size_t>(b + 2 * n)] > 0)
      levels.push_back({0.0 - J * b, counts[static_cast<size_t>(b + 2 * n)]});
  if (J < 0) std::reverse(levels.begin(), levels.end());
  return levels;
}

}  // namespace alloy
