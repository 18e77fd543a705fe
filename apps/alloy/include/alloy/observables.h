// What the Monte Carlo measures of a configuration: the long-range order (sublattice occupation
// differences: B2 on bcc, L1₀ on fcc, any number of species), the Warren–Cowley short-range order
// per shell, and per temperature the averages that give the energy, heat capacity, order and Binder
// cumulant with error bars from blocks of sweeps.
#pragma once

#include <array>
#include <cstdint>
#include <vector>

#include "alloy/configuration.h"
#include "alloy/lattice.h"

namespace alloy {

/// B2 order of a bcc binary: (1/N) Σ_i σ_i η_i with σ = +1 for species 0, −1 for species 1 and
/// η = +1 on sublattice 0, −1 on sublattice 1; ±1 in perfect B2 order, about 0 when disordered.
double b2_order(const Lattice& lattice, const Occupation& occupation);

/// The sublattice long-range order of any cubic lattice and any number of species, from 0
/// (random) to 1 (perfect). For each split of the cell's sublattices into halves A | B — bcc:
/// corners | centres (the B2 order); fcc: {0,3} | {1,2}, {0,2} | {1,3}, {0,1} | {2,3} (the L1₀
/// orders layered along z, y, x) — m = ½ Σ_s |x_s(A) − x_s(B)|, x_s(H) the fraction of H's sites
/// that species s holds; the order is the root of the sum of the splits' m². A bcc binary gives
/// |b2_order|; B2 NbMoTaW with (Mo, W) on one sublattice and (Nb, Ta) on the other gives 1;
/// L1₀ gives 1 (the other two splits 0).
double long_range_order(const Lattice& lattice, const Occupation& occupation, int species);

/// Warren–Cowley α_s = 1 − P(unlike neighbour in shell s | site of species 0) / c_1 for a binary
/// (c_1: the fraction of species 1): 0 at random, < 0 where unlike neighbours are favoured.
std::vector<double> short_range_order(const Lattice& lattice, const Occupation& occupation);

/// Running sums of one temperature's measurements, in blocks of consecutive sweeps.
struct ThermoSums {
  /// [blocks] each: count, Σe, Σe², Σ|m|, Σm², Σm⁴ (e: total energy, m: order parameter).
  std::vector<std::array<double, 6>> blocks;
  std::vector<double> sro_sum;  ///< [shells] Σ α_s
  double sro_count = 0;
};

/// A temperature's results with standard errors (from the spread of the block estimates).
struct ThermoPoint {
  double kt = 0;                                      ///< eV
  double energy = 0, energy_error = 0;                ///< ⟨E⟩/N (eV per site)
  double heat_capacity = 0, heat_capacity_error = 0;  ///< (⟨E²⟩ − ⟨E⟩²)/(N kT²) (k_B per site)
  double order = 0, order_error = 0;                  ///< ⟨|m|⟩
  double binder = 0, binder_error = 0;                ///< U₄ = 1 − ⟨m⁴⟩/(3⟨m²⟩²)
  std::vector<double> sro;                            ///< ⟨α_s⟩ per shell
  int64_t samples = 0;
};

/// The point of `sums` at temperature `kt` for a lattice of `sites` sites.
ThermoPoint thermo_point(const ThermoSums& sums, double kt, int64_t sites);

}  // namespace alloy
