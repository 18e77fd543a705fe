// Kawasaki Monte Carlo and replica exchange: composition kept, accumulated energies equal a
// recount, seeds reproduce, the B2 order at low temperature, and the order–disorder transition of
// the nearest-neighbour bcc model near the exact kTc/V = 6.3544.
#include <gtest/gtest.h>

#include <cmath>

#include "alloy/critical_temperature.h"
#include "alloy/kawasaki.h"
#include "alloy/replica_exchange.h"

namespace alloy {
namespace {

TEST(Kawasaki, KeepsTheCompositionAndItsEnergyMatchesARecount) {
  const Lattice lattice(Structure::bcc, 5, 2);
  const PairSwapEnergy energy(PairEnergy::ising({1.0, 0.3}));
  Rng rng(2);
  const Composition c{{"Ni", "Al"}, {125, 125}};
  KawasakiWalk walk(lattice, random_configuration(lattice, c, rng), energy);
  metropolis_sweeps(walk, 4.0, 200, rng);
  EXPECT_EQ(species_counts(walk.occupation(), 2), (std::vector<int64_t>{125, 125}));
  EXPECT_NEAR(walk.energy(), walk.recount(), 1e-9);
}

ReplicaExchangeOptions quick(std::vector<double> temperatures, uint64_t seed) {
  ReplicaExchangeOptions o;
  o.temperatures = std::move(temperatures);
  o.equilibration_sweeps = 200;
  o.measurement_sweeps = 400;
  o.blocks = 10;
  o.seed = seed;
  return o;
}

TEST(ReplicaExchange, TheSameSeedGivesTheSameNumbers) {
  const Lattice lattice(Structure::bcc, 3, 1);
  const PairSwapEnergy energy(PairEnergy::ising({1.0}));
  const Composition c{{"A", "B"}, {27, 27}};
  const auto a = replica_exchange(lattice, c, energy, quick({5.0, 6.0, 7.0}, 9));
  const auto b = replica_exchange(lattice, c, energy, quick({5.0, 6.0, 7.0}, 9));
  const auto other = replica_exchange(lattice, c, energy, quick({5.0, 6.0, 7.0}, 10));
  for (size_t t = 0; t < 3; ++t) {
    EXPECT_EQ(a.points[t].energy, b.points[t].energy);
    EXPECT_EQ(a.points[t].binder, b.points[t].binder);
  }
  EXPECT_NE(a.points[1].energy, other.points[1].energy);
  EXPECT_EQ(a.attempted_swaps, 3 * 600 * 54);
  for (const double acceptance : a.exchange_acceptance) EXPECT_GT(acceptance, 0.0);
}

TEST(ReplicaExchange, FindsTheB2OrderAtLowTemperatureAndDisorderAtHigh) {
  const Lattice lattice(Structure::bcc, 4, 1);
  const PairSwapEnergy energy(PairEnergy::ising({1.0}));
  const Composition c{{"Ni", "Al"}, {64, 64}};
  const auto r = replica_exchange(lattice, c, energy, quick({2.0, 4.0, 6.0, 9.0, 12.0}, 1));
  EXPECT_GT(r.points[0].order, 0.99);           // ordered
  EXPECT_NEAR(r.points[0].energy, -4.0, 0.02);  // the B2 ground state's −4 V a site
  EXPECT_LT(r.points[4].order, 0.3);            // disordered
  EXPECT_LT(r.points[0].sro[0], -0.9);          // unlike nearest neighbours
  EXPECT_GT(r.points[4].sro[0], r.points[0].sro[0]);
  EXPECT_GT(r.points[2].heat_capacity, r.points[0].heat_capacity);
}

// The fast version of the check: the Binder cumulants of 4³ and 6³-cell lattices of the
// nearest-neighbour model cross in [6.2, 6.5] V (exact: 6.3544; mean field: 8).
TEST(ReplicaExchange, BinderCrossingOfTheNearestNeighbourBccModelBracketsTheExactTc) {
  const PairSwapEnergy energy(PairEnergy::ising({1.0}));
  std::vector<double> temperatures;
  for (double t = 5.8; t < 7.05; t += 0.15) temperatures.push_back(t);
  ReplicaExchangeOptions o;
  o.temperatures = temperatures;
  o.equilibration_sweeps = 2000;
  o.measurement_sweeps = 8000;
  o.seed = 4;
  std::vector<std::vector<ThermoPoint>> curves;
  for (const int cells : {4, 6}) {
    const Lattice lattice(Structure::bcc, cells, 1);
    const int64_t half = lattice.sites() / 2;
    curves.push_back(replica_exchange(lattice, {{"A", "B"}, {half, half}}, energy, o).points);
  }
  const Estimate tc = binder_crossing(curves[0], curves[1]);
  ASSERT_TRUE(tc.found);
  std::printf("Binder crossing (4 vs 6 cells): kTc/V = %.4f ± %.4f (exact 6.3544)\n", tc.value,
              tc.error);
  EXPECT_GE(tc.value, 6.2);
  EXPECT_LE(tc.value, 6.5);
}

}  // namespace
}  // namespace alloy
