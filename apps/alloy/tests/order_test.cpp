// The long-range order parameter on every lattice and species count: 1 for the ordered
// structures (B2 binary, B2 of a four-species high-entropy alloy, L1₀ in each of its three
// orientations), near 0 for random configurations, the B2 order's magnitude on bcc binaries; and
// Monte Carlo finds those orders at low temperature and loses them at high temperature.
#include <gtest/gtest.h>

#include <cmath>

#include "alloy/kawasaki.h"
#include "alloy/observables.h"
#include "alloy/replica_exchange.h"

namespace alloy {
namespace {

// fcc sublattices 0..3 sit at (0,0,0), (0,½,½), (½,0,½), (½,½,0) of each cell (lattice.h).
Occupation l10(const Lattice& lattice, int axis) {
  Occupation out(static_cast<size_t>(lattice.sites()));
  for (int64_t i = 0; i < lattice.sites(); ++i) {
    const double layer = lattice.position(i)[axis];  // 0 or ½ within the cell
    out[i] = std::abs(layer - std::floor(layer)) < 0.25 ? 0 : 1;
  }
  return out;
}

TEST(LongRangeOrder, IsOneForOrderedStructuresAndSmallForRandomOnes) {
  const Lattice bcc(Structure::bcc, 4, 1);
  EXPECT_DOUBLE_EQ(long_range_order(bcc, b2_configuration(bcc), 2), 1.0);
  Rng rng(3);
  for (int k = 0; k < 5; ++k) {
    const Occupation random = random_configuration(bcc, {{"A", "B"}, {64, 64}}, rng);
    EXPECT_NEAR(long_range_order(bcc, random, 2), std::abs(b2_order(bcc, random)), 1e-15);
    EXPECT_LT(long_range_order(bcc, random, 2), 0.35);
  }
  // B2 NbMoTaW-like: species 0, 1 share the corners, 2, 3 the centres, in any arrangement.
  Occupation hea(static_cast<size_t>(bcc.sites()));
  for (int64_t i = 0; i < bcc.sites(); ++i)
    hea[i] = static_cast<uint8_t>(bcc.sublattice(i) * 2 + rng.below(2));
  EXPECT_DOUBLE_EQ(long_range_order(bcc, hea, 4), 1.0);
  const Occupation hea_random =
      random_configuration(bcc, {{"Nb", "Mo", "Ta", "W"}, {32, 32, 32, 32}}, rng);
  EXPECT_LT(long_range_order(bcc, hea_random, 4), 0.4);

  const Lattice fcc(Structure::fcc, 3, 1);
  for (int axis = 0; axis < 3; ++axis)
    EXPECT_NEAR(long_range_order(fcc, l10(fcc, axis), 2), 1.0, 1e-15) << "L1_0 along " << axis;
  EXPECT_LT(long_range_order(fcc, random_configuration(fcc, {{"Cu", "Au"}, {54, 54}}, rng), 2),
            0.4);
  EXPECT_THROW(long_range_order(fcc, l10(fcc, 0), 1), std::invalid_argument);  // species 1 > 0
}

ReplicaExchangeOptions quick(std::vector<double> temperatures) {
  ReplicaExchangeOptions o;
  o.temperatures = std::move(temperatures);
  o.equilibration_sweeps = 300;
  o.measurement_sweeps = 300;
  o.blocks = 6;
  o.seed = 17;
  return o;
}

// fcc at 50/50 with unlike nearest neighbours favoured (V₁ > 0) has a macroscopically degenerate
// ground state (L1₀ and its stacking variants cost the same); a second-neighbour V₂ < 0 (like
// pairs at distance a favoured: all of L1₀'s are like) selects L1₀, of energy
// −2 V₁ + 3 V₂ a site (6 nearest-neighbour bonds a site: 2 like, 4 unlike; 3 second-neighbour
// bonds, all like). Monte Carlo finds it at low temperature and loses it at high.
TEST(LongRangeOrder, MonteCarloFindsL10OnFccAndLosesItWhenHot) {
  const Lattice fcc(Structure::fcc, 4, 2);
  const PairSwapEnergy energy(PairEnergy::ising({1.0, -0.25}));
  const auto r =
      replica_exchange(fcc, {{"Cu", "Au"}, {128, 128}}, energy, quick({0.6, 1.0, 1.4, 2.4, 4.0}));
  EXPECT_GT(r.points[0].order, 0.95);
  EXPECT_NEAR(r.points[0].energy, -2.0 + 3 * -0.25, 0.02);
  EXPECT_LT(r.points[4].order, 0.3);
}

// Four species on bcc, nearest neighbours only: pairs across the groups {0, 1} | {2, 3} are
// favoured (−V), pairs within a group disfavoured (+V): at low temperature the groups take the two
// sublattices (a B2 of the high-entropy alloy), at high temperature they mix.
TEST(LongRangeOrder, MonteCarloFindsTheB2OrderOfAFourSpeciesAlloy) {
  const Lattice bcc(Structure::bcc, 4, 1);
  PairMatrices v(1, std::vector<std::vector<double>>(4, std::vector<double>(4, 0.0)));
  for (int a = 0; a < 4; ++a)
    for (int b = 0; b < 4; ++b) v[0][a][b] = (a / 2 == b / 2) ? 1.0 : -1.0;
  const PairSwapEnergy energy{PairEnergy(v)};
  const auto r = replica_exchange(bcc, {{"Nb", "Mo", "Ta", "W"}, {32, 32, 32, 32}}, energy,
                                  quick({1.0, 2.0, 4.0, 8.0, 16.0}));
  EXPECT_GT(r.points[0].order, 0.95);
  EXPECT_LT(r.points[4].order, 0.35);
  for (size_t t = 1; t < r.points.size(); ++t)
    EXPECT_LE(r.points[t].order, r.points[t - 1].order + 0.05) << "order rises with temperature";
}

}  // namespace
}  // namespace alloy
