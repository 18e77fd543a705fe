// The lammps_eam oracle (LAMMPS with lammps-data's NiAl EAM potential): B2 NiAl is the low-energy
// order, the linear pair surrogate fits the EAM energies of held-out configurations with
// R² ≥ 0.99, Monte Carlo driven by LAMMPS and by the surrogate agree and find B2 at low
// temperature, and bad input is refused before LAMMPS sees it.
#include <gtest/gtest.h>

#include <cmath>

#include "alloy/descriptors.h"
#include "alloy/lammps_oracle.h"
#include "alloy/linear_surrogate.h"
#include "alloy/network_surrogate.h"
#include "alloy/oracle_swap_energy.h"
#include "alloy/replica_exchange.h"

namespace alloy {
namespace {

// B2 with `swaps` random Ni-Al exchanges: from perfect order (0) towards disorder.
Occupation partly_ordered(const Lattice& lattice, int swaps, Rng& rng) {
  Occupation state = b2_configuration(lattice);
  for (int k = 0; k < swaps; ++k) {
    const int64_t i = rng.below(static_cast<uint32_t>(lattice.sites()));
    const int64_t j = rng.below(static_cast<uint32_t>(lattice.sites()));
    std::swap(state[i], state[j]);
  }
  return state;
}

TEST(LammpsOracle, B2IsBelowDisorderAndThePairSurrogateFitsEamEnergies) {
  const Lattice lattice(Structure::bcc, 4, 5);
  LammpsOracle oracle(lattice, {});
  Rng rng(21);
  const double b2 = oracle.energy(b2_configuration(lattice)) / 128.0;
  const double disordered =
      oracle.energy(random_configuration(lattice, {{"Ni", "Al"}, {64, 64}}, rng)) / 128.0;
  std::printf("EAM NiAl (a = 2.887 A): B2 %.4f eV/atom, a random configuration %.4f eV/atom\n", b2,
              disordered);
  EXPECT_TRUE(std::isfinite(b2));
  EXPECT_LT(b2, disordered - 0.05);  // ordering lowers the energy by a tenth of an eV or more
  std::vector<Occupation> train, test;
  std::vector<double> e_train, e_test;
  for (int k = 0; k < 160; ++k) {
    const Occupation s = partly_ordered(lattice, static_cast<int>(rng.below(80)), rng);
    (k < 120 ? train : test).push_back(s);
    (k < 120 ? e_train : e_test).push_back(oracle.energy(s));
  }
  EXPECT_EQ(oracle.calls(), 162);
  const LinearFit fit = fit_pair_model(lattice, 2, train, e_train);
  std::vector<double> predicted;
  for (const Occupation& s : test) predicted.push_back(fit.model.energy(lattice, s));
  const FitQuality q = fit_quality(predicted, e_test, lattice.sites());
  std::printf(
      "pair surrogate (5 shells) on held-out EAM energies: R2 %.7f, RMSE %.4f meV/atom; "
      "LAMMPS %.2f ms a call\n",
      q.r2, q.rmse_mev_per_site, 1000.0 * oracle.seconds() / oracle.calls());
  EXPECT_GE(q.r2, 0.99);
}

// On bcc 4³: replica exchange at kT = 0.1 and 0.3 eV driven by LAMMPS itself (one call a swap)
// and by the 5-shell pair surrogate fitted to 120 LAMMPS energies; both find the B2 order at
// 0.1 eV, and their B2 order parameters agree within the error bars at both temperatures.
TEST(LammpsOracle, SurrogateMonteCarloAgreesWithLammpsMonteCarlo) {
  const Lattice lattice(Structure::bcc, 4, 5);
  LammpsOracle oracle(lattice, {});
  Rng rng(33);
  std::vector<Occupation> train;
  std::vector<double> energies;
  for (int k = 0; k < 120; ++k) {
    train.push_back(partly_ordered(lattice, static_cast<int>(rng.below(80)), rng));
    energies.push_back(oracle.energy(train.back()));
  }
  const PairSwapEnergy surrogate(fit_pair_model(lattice, 2, train, energies).model);
  const OracleSwapEnergy lammps(oracle);
  const Composition c{{"Ni", "Al"}, {64, 64}};
  ReplicaExchangeOptions o;
  o.temperatures = {0.1, 0.3};
  o.equilibration_sweeps = 40;
  o.measurement_sweeps = 100;
  o.blocks = 5;
  o.seed = 8;
  const int64_t calls_before = oracle.calls();
  const ReplicaExchangeResult by_lammps = replica_exchange(lattice, c, lammps, o);
  const int64_t lammps_calls = oracle.calls() - calls_before;
  o.measurement_sweeps = 2000;
  o.blocks = 20;
  const ReplicaExchangeResult by_surrogate = replica_exchange(lattice, c, surrogate, o);
  for (size_t t = 0; t < 2; ++t) {
    const ThermoPoint &a = by_lammps.points[t], &b = by_surrogate.points[t];
    std::printf("kT %.2f eV: B2 order %.3f +- %.3f (LAMMPS MC), %.3f +- %.3f (surrogate MC)\n",
                a.kt, a.order, a.order_error, b.order, b.order_error);
    EXPECT_NEAR(a.order, b.order, 3 * std::hypot(a.order_error, b.order_error) + 0.02);
  }
  std::printf("LAMMPS-driven MC: %lld oracle calls, %.1f s\n", static_cast<long long>(lammps_calls),
              by_lammps.seconds);
  EXPECT_GT(by_lammps.points[0].order, 0.9);  // the B2 ground state, found from random starts
  EXPECT_GT(by_surrogate.points[0].order, 0.9);
}

// relax: true minimises the positions (fixed box) before the energy. B2 is at a symmetric
// minimum (no force on any atom: relaxing changes nothing); a disordered configuration relaxes
// to a lower energy, and its relaxed energies are what a surrogate then has to fit (no longer a
// pair model on the ideal lattice: the fit quality is measured, and printed).
TEST(LammpsOracle, RelaxedEnergiesAreLowerAndB2StaysPut) {
  const Lattice lattice(Structure::bcc, 4, 5);
  LammpsOracle ideal(lattice, {});
  LammpsOptions relaxing;
  relaxing.relax = true;
  LammpsOracle relaxed(lattice, relaxing);
  const double sites = static_cast<double>(lattice.sites());
  const Occupation b2 = b2_configuration(lattice);
  EXPECT_NEAR(relaxed.energy(b2) / sites, ideal.energy(b2) / sites, 1e-6);
  Rng rng(5);
  std::vector<Occupation> train, test;
  std::vector<double> e_train, e_test;
  double largest_drop = 0, smallest_drop = 1e9;
  for (int k = 0; k < 120; ++k) {
    const Occupation s = partly_ordered(lattice, 1 + static_cast<int>(rng.below(80)), rng);
    const double e_relaxed = relaxed.energy(s);
    const double drop = (ideal.energy(s) - e_relaxed) / sites;
    EXPECT_GE(drop, -1e-7) << "configuration " << k << ": relaxing raised the energy";
    largest_drop = std::max(largest_drop, drop);
    smallest_drop = std::min(smallest_drop, drop);
    (k < 90 ? train : test).push_back(s);
    (k < 90 ? e_train : e_test).push_back(e_relaxed);
  }
  EXPECT_GT(largest_drop, 1e-4);  // relaxing did something (more than 0.1 meV/atom somewhere)
  const LinearFit fit = fit_pair_model(lattice, 2, train, e_train);
  std::vector<double> predicted;
  for (const Occupation& s : test) predicted.push_back(fit.model.energy(lattice, s));
  const FitQuality q = fit_quality(predicted, e_test, lattice.sites());
  std::printf(
      "relaxed EAM energies: relaxation lowers them by %.2f to %.2f meV/atom; the 5-shell pair "
      "surrogate on held-out relaxed energies: R2 %.5f, RMSE %.3f meV/atom; relaxed LAMMPS call "
      "%.1f ms\n",
      1000 * smallest_drop, 1000 * largest_drop, q.r2, q.rmse_mev_per_site,
      1000.0 * relaxed.seconds() / relaxed.calls());
  EXPECT_GE(q.r2, 0.99);  // the bar for EAM energies
}

TEST(LammpsOracle, BadInputIsNamedBeforeLammpsSeesIt) {
  const Lattice lattice(Structure::bcc, 2, 1);
  auto message = [&](LammpsOptions o) {
    try {
      LammpsOracle oracle(lattice, std::move(o));
    } catch (const std::invalid_argument& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  LammpsOptions unknown_species;
  unknown_species.elements = {"Ni", "Xx"};
  EXPECT_NE(message(unknown_species).find("species 'Xx' is not in"), std::string::npos);
  EXPECT_NE(message(unknown_species).find("it holds Ni, Al, H"), std::string::npos);
  LammpsOptions missing;
  missing.potential = "NoSuch.eam.alloy";
  EXPECT_NE(message(missing).find("no potential file 'NoSuch.eam.alloy'"), std::string::npos);
  LammpsOptions silly;
  silly.lattice_constant = 288;
  EXPECT_NE(message(silly).find("not a metal's"), std::string::npos);
}

}  // namespace
}  // namespace alloy
