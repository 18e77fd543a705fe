// Descriptors and the pair model: counts add up to the bonds, a swap's feature and energy changes
// equal a recount, the Ising shortcut's B2 ground state, and the linear fit recovers the model.
#include <gtest/gtest.h>

#include <cmath>

#include "alloy/descriptors.h"
#include "alloy/linear_surrogate.h"
#include "alloy/oracle.h"
#include "alloy/pair_energy.h"

namespace alloy {
namespace {

// A random symmetric pair model of `species` species on `shells` shells.
PairEnergy random_model(int shells, int species, Rng& rng) {
  PairMatrices v(
      static_cast<size_t>(shells),
      std::vector<std::vector<double>>(static_cast<size_t>(species),
                                       std::vector<double>(static_cast<size_t>(species))));
  for (auto& shell : v)
    for (int a = 0; a < species; ++a)
      for (int b = a; b < species; ++b) shell[a][b] = shell[b][a] = rng.uniform() - 0.5;
  return PairEnergy(std::move(v), 1.5);
}

TEST(Descriptors, PairCountsAddUpToEachShellsBonds) {
  const Lattice lattice(Structure::fcc, 4, 6);
  Rng rng(3);
  const Composition c = Composition::from_fractions({"A", "B", "C"}, {0.25, 0.25, 0.5}, 256);
  const std::vector<double> x = pair_counts(lattice, random_configuration(lattice, c, rng), 3);
  for (int s = 0; s < 6; ++s) {
    double bonds = 0;
    for (int p = 0; p < pair_count(3); ++p) bonds += x[s * pair_count(3) + p];
    EXPECT_EQ(bonds, lattice.shell(s).coordination * 256 / 2) << "shell " << s + 1;
  }
}

TEST(Descriptors, SwapDeltaEqualsARecountAndSoDoesTheEnergyChange) {
  const Lattice lattice(Structure::bcc, 5, 6);
  Rng rng(11);
  const Composition four{{"Nb", "Mo", "Ta", "W"}, {60, 60, 65, 65}};
  Occupation occ = random_configuration(lattice, four, rng);
  const PairEnergy model = random_model(6, 4, rng);
  for (int trial = 0; trial < 200; ++trial) {
    const int64_t i = rng.below(250);
    // Neighbours in every shell, and sites far apart.
    const int shell = static_cast<int>(rng.below(7));
    const int64_t j = shell < 6 ? lattice.neighbours(shell, i)[0] : rng.below(250);
    if (i == j) continue;
    const std::vector<double> before = pair_counts(lattice, occ, 4);
    const std::vector<double> delta = swap_delta(lattice, occ, 4, i, j);
    const double e_before = model.energy(lattice, occ);
    const double change = model.swap_change(lattice, occ, i, j);
    std::swap(occ[i], occ[j]);
    const std::vector<double> after = pair_counts(lattice, occ, 4);
    for (size_t f = 0; f < before.size(); ++f) ASSERT_EQ(after[f] - before[f], delta[f]) << f;
    ASSERT_NEAR(model.energy(lattice, occ) - e_before, change, 1e-9) << "trial " << trial;
  }
}

TEST(PairEnergy, IsAWeightedSumOfTheFeatures) {
  const Lattice lattice(Structure::fcc, 4, 4);
  Rng rng(5);
  const PairEnergy model = random_model(4, 3, rng);
  const Composition c{{"A", "B", "C"}, {100, 100, 56}};
  const Occupation occ = random_configuration(lattice, c, rng);
  const std::vector<double> x = pair_counts(lattice, occ, 3), w = model.feature_weights();
  double e = model.e0();
  for (size_t f = 0; f < x.size(); ++f) e += w[f] * x[f];
  EXPECT_NEAR(model.energy(lattice, occ), e, 1e-9);
}

TEST(PairEnergy, IsingB2GroundStateHasEveryNearestNeighbourUnlike) {
  const Lattice bcc(Structure::bcc, 4, 1);
  const PairEnergy ising = PairEnergy::ising({1.0});
  // 8 unlike neighbours a site: E/N = −8/2 V.
  EXPECT_DOUBLE_EQ(ising.energy(bcc, b2_configuration(bcc)) / 128.0, -4.0);
}

TEST(PairEnergy, BadModelsAreRefused) {
  EXPECT_THROW(PairEnergy(PairMatrices{{{0.0, 1.0}, {2.0, 0.0}}}),
               std::invalid_argument);                                     // asymmetric
  EXPECT_THROW(PairEnergy(PairMatrices{{{0.0}}}), std::invalid_argument);  // one species
  EXPECT_THROW(Composition::from_fractions({"Ni", "Al"}, {0.3, 0.7}, 128), std::invalid_argument);
  EXPECT_THROW(Composition::from_fractions({"Ni"}, {1.0}, 128), std::invalid_argument);
}

TEST(LinearSurrogate, RecoversTheEnergiesOfThePairModel) {
  const Lattice lattice(Structure::bcc, 5, 3);
  Rng rng(17);
  const PairEnergy truth = random_model(3, 2, rng);
  PairModelOracle oracle(lattice, truth);
  const Composition c{{"Fe", "Al"}, {125, 125}};
  std::vector<Occupation> train;
  std::vector<double> energies;
  for (int k = 0; k < 40; ++k) {
    train.push_back(random_configuration(lattice, c, rng));
    energies.push_back(oracle.energy(train.back()));
  }
  EXPECT_EQ(oracle.calls(), 40);
  const LinearFit fit = fit_pair_model(lattice, 2, train, energies);
  // Binary at fixed composition: one independent count per shell, plus the constant.
  EXPECT_EQ(fit.rank, 3 + 1);
  EXPECT_LT(fit.train_rmse, 1e-9);
  for (int k = 0; k < 10; ++k) {
    const Occupation fresh = random_configuration(lattice, c, rng);
    EXPECT_NEAR(fit.model.energy(lattice, fresh), truth.energy(lattice, fresh), 1e-7);
  }
}

}  // namespace
}  // namespace alloy
