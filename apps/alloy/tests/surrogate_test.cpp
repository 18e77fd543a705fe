// Network surrogates trained with exadnn's Trainer: they learn the pair model's energies, their
// state round-trips, the ensemble's spread grows away from the data, and the batched Monte Carlo
// gives the same averages as the one-swap-at-a-time chain.
#include <gtest/gtest.h>

#include <exadnn/core/state_dict.h>

#include <cmath>

#include "alloy/batched_sampler.h"
#include "alloy/network_surrogate.h"
#include "alloy/oracle.h"
#include "alloy/replica_exchange.h"

namespace alloy {
namespace {

// `count` configurations of `lattice` at 50/50: random ones, then ones relaxed at a low
// temperature (so the set spans disorder to order) and their pair-model energies.
void sample(const Lattice& lattice, const PairEnergy& model, int count, uint64_t seed,
            std::vector<Occupation>& states, std::vector<double>& energies) {
  Rng rng(seed);
  const PairSwapEnergy exact(model);
  const int64_t half = lattice.sites() / 2;
  for (int k = 0; k < count; ++k) {
    KawasakiWalk walk(lattice, random_configuration(lattice, {{"A", "B"}, {half, half}}, rng),
                      exact);
    metropolis_sweeps(walk, 2.0 + 8.0 * rng.uniform(), k % 4, rng);  // 0-3 sweeps: varied order
    states.push_back(walk.occupation());
    energies.push_back(model.energy(lattice, walk.occupation()));
  }
}

TEST(NetworkSurrogate, BothKindsLearnThePairModelAndRoundTripTheirState) {
  const Lattice lattice(Structure::bcc, 3, 2);
  const PairEnergy model = PairEnergy::ising({1.0, 0.3});
  std::vector<Occupation> train, test;
  std::vector<double> e_train, e_test;
  sample(lattice, model, 160, 1, train, e_train);
  sample(lattice, model, 40, 2, test, e_test);
  for (const NetworkKind kind : {NetworkKind::features_mlp, NetworkKind::site_network}) {
    NetworkOptions o;
    o.kind = kind;
    o.hidden = {16, 16};
    o.epochs = kind == NetworkKind::features_mlp ? 60 : 150;
    o.lr = 1e-2;
    const NetworkSurrogate net(lattice, 2, train, e_train, o);
    const FitQuality q = fit_quality(net.energies(test), e_test, lattice.sites());
    std::printf("%s: held-out R2 %.4f, RMSE %.1f meV/site\n",
                kind == NetworkKind::features_mlp ? "features_mlp" : "site_network", q.r2,
                q.rmse_mev_per_site);
    EXPECT_GT(q.r2, 0.95);
    const NetworkSurrogate copy(lattice, 2, o, net.state());
    EXPECT_EQ(copy.energies(test), net.energies(test));
  }
}

TEST(NetworkSurrogate, BadInputIsRefused) {
  const Lattice lattice(Structure::bcc, 3, 1);
  EXPECT_THROW(parse_network_kind("transformer"), std::invalid_argument);
  EXPECT_THROW(NetworkSurrogate(lattice, 2, {Occupation(54, 0)}, {1.0}, NetworkOptions()),
               std::invalid_argument);
}

TEST(SurrogateEnsemble, MembersDisagreeMoreFarFromTheirData) {
  const Lattice lattice(Structure::bcc, 3, 1);
  const PairEnergy model = PairEnergy::ising({1.0});
  std::vector<Occupation> disordered;  // random states only: the ordered one is far away
  std::vector<double> energies;
  Rng rng(5);
  for (int k = 0; k < 80; ++k) {
    disordered.push_back(random_configuration(lattice, {{"A", "B"}, {27, 27}}, rng));
    energies.push_back(model.energy(lattice, disordered.back()));
  }
  NetworkOptions o;
  o.hidden = {16};
  o.epochs = 40;
  const SurrogateEnsemble ensemble(lattice, 2, disordered, energies, o, 4);
  std::vector<double> mean, spread;
  ensemble.predict({disordered[0], b2_configuration(lattice)}, mean, spread);
  EXPECT_GT(spread[1], spread[0]);
}

// The exact pair model behind the batched interface.
class PairBatch : public BatchSwapEnergy {
 public:
  PairBatch(const Lattice& lattice, PairEnergy model) : lattice_(lattice), model_(model) {}
  double total(const Occupation& o) const override { return model_.energy(lattice_, o); }
  std::vector<double> swap_changes(
      const Occupation& o, const std::vector<std::pair<int64_t, int64_t>>& swaps) const override {
    std::vector<double> out;
    for (const auto& [i, j] : swaps) out.push_back(model_.swap_change(lattice_, o, i, j));
    return out;
  }

 private:
  const Lattice& lattice_;
  PairEnergy model_;
};

TEST(BatchedSampler, SamplesTheSameAveragesAsOneSwapAtATime) {
  const Lattice lattice(Structure::bcc, 4, 1);
  const PairEnergy model = PairEnergy::ising({1.0});
  const PairSwapEnergy one(model);
  const PairBatch batch(lattice, model);
  ReplicaExchangeOptions o;
  o.temperatures = {5.0, 6.4, 8.0};
  o.equilibration_sweeps = 500;
  o.measurement_sweeps = 4000;
  const Composition c{{"A", "B"}, {64, 64}};
  const auto a = replica_exchange(lattice, c, swap_sampler(lattice, one), o);
  const auto b = replica_exchange(lattice, c, batched_sampler(lattice, batch, 16), o);
  for (size_t t = 0; t < 3; ++t) {
    const double tolerance = 4 * std::hypot(a.points[t].energy_error, b.points[t].energy_error);
    EXPECT_NEAR(a.points[t].energy, b.points[t].energy, tolerance) << "kT " << o.temperatures[t];
  }
}

}  // namespace
}  // namespace alloy
