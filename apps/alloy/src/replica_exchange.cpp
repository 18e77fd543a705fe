#include "alloy/replica_exchange.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <memory>
#include <stdexcept>

#include "exadnn/dist/communicator.h"
#include "exadnn/ops/factories.h"

namespace alloy {
namespace {

void check(const ReplicaExchangeOptions& o) {
  if (o.temperatures.empty())
    throw std::invalid_argument("alloy: replica exchange needs at least one temperature");
  for (size_t t = 0; t < o.temperatures.size(); ++t)
    if (!(o.temperatures[t] > 0) || (t > 0 && o.temperatures[t] <= o.temperatures[t - 1]))
      throw std::invalid_argument("alloy: temperatures must be > 0 and ascending (entry " +
                                  std::to_string(t) + ")");
  if (o.equilibration_sweeps < 0 || o.measurement_sweeps < 1 || o.sweeps_per_exchange < 1)
    throw std::invalid_argument(
        "alloy: replica exchange needs equilibration_sweeps >= 0, measurement_sweeps >= 1 and "
        "sweeps_per_exchange >= 1");
  if (o.blocks < 2 || o.blocks > o.measurement_sweeps)
    throw std::invalid_argument("alloy: blocks must be 2 to measurement_sweeps (" +
                                std::to_string(o.measurement_sweeps) + "), not " +
                                std::to_string(o.blocks));
}

// Sums a vector over the ranks (in place); nothing to do without a communicator.
void sum_over_ranks(std::vector<double>& values, const exadnn::dist::Communicator* comm) {
  if (!comm || comm->size() == 1) return;
  exadnn::Tensor t = exadnn::from_vector<double>(values);
  comm->allreduce_blocking(t);
  std::copy(t.data<double>(), t.data<double>() + values.size(), values.begin());
}

}  // namespace

ReplicaExchangeResult replica_exchange(const Lattice& lattice, const Composition& composition,
                                       const SwapEnergy& energy,
                                       const ReplicaExchangeOptions& options,
                                       const exadnn::dist::Communicator* comm) {
  return replica_exchange(lattice, composition, swap_sampler(lattice, energy), options, comm);
}

ReplicaExchangeResult replica_exchange(const Lattice& lattice, const Composition& composition,
                                       const SamplerFactory& make,
                                       const ReplicaExchangeOptions& options,
                                       const exadnn::dist::Communicator* comm) {
  check(options);
  const int ranks = comm ? comm->size() : 1, rank = comm ? comm->rank() : 0;
  const int replicas = static_cast<int>(options.temperatures.size());
  const int shells = lattice.shells();

  // This rank's replicas: each starts from its own random configuration and random stream.
  struct Replica {
    int index;
    std::unique_ptr<Sampler> walk;
    Rng rng;
  };
  std::vector<Replica> mine;
  for (int r = rank; r < replicas; r += ranks) {
    Rng start(options.seed * 1000003 + static_cast<uint64_t>(r));
    Occupation occupation = random_configuration(lattice, composition, start);
    mine.push_back({r, make(std::move(occupation)),
                    Rng(options.seed * 7919 + 104729 * static_cast<uint64_t>(r) + 1)});
  }
  std::vector<int> temperature_of(static_cast<size_t>(replicas)), replica_at(temperature_of.size());
  for (int r = 0; r < replicas; ++r) temperature_of[r] = replica_at[r] = r;
  Rng exchange_rng(options.seed ^ 0x5deece66dull);  // the same stream on every rank

  std::vector<ThermoSums> sums(static_cast<size_t>(replicas));
  for (ThermoSums& s : sums) {
    s.blocks.assign(static_cast<size_t>(options.blocks), {});
    s.sro_sum.assign(static_cast<size_t>(shells), 0.0);
  }
  std::vector<double> tried(static_cast<size_t>(std::max(replicas - 1, 0)), 0.0),
      taken(tried.size(), 0.0);

  const int64_t total = options.equilibration_sweeps + options.measurement_sweeps;
  const auto start = std::chrono::steady_clock::now();
  int64_t done = 0, round = 0, attempted = 0;
  while (done < total) {
    const int64_t sweeps = std::min(options.sweeps_per_exchange, total - done);
    for (Replica& r : mine) {
      const int t = temperature_of[r.index];
      const double kt = options.temperatures[t];
      for (int64_t k = 0; k < sweeps; ++k) {
        r.walk->sweep(kt, r.rng);
        attempted += lattice.sites();
        const int64_t measured = done + k - options.equilibration_sweeps;
        if (measured < 0) continue;
        const double e = r.walk->energy();
        if (options.snapshot_every > 0 && options.on_snapshot &&
            (measured + 1) % options.snapshot_every == 0)
          options.on_snapshot(t, r.walk->occupation(), e);
        const double m = long_range_order(lattice, r.walk->occupation(), composition.size());
        auto& block = sums[t].blocks[static_cast<size_t>(measured * options.blocks /
                                                         options.measurement_sweeps)];
        block[0] += 1;
        block[1] += e;
        block[2] += e * e;
        block[3] += std::abs(m);
        block[4] += m * m;
        block[5] += m * m * m * m;
      }
      if (done + sweeps > options.equilibration_sweeps && composition.size() == 2) {
        const std::vector<double> alpha = short_range_order(lattice, r.walk->occupation());
        for (int s = 0; s < shells; ++s) sums[t].sro_sum[s] += alpha[s];
        sums[t].sro_count += 1;
      }
    }
    done += sweeps;
    // Exchanges: alternately the pairs (0,1), (2,3), ... and (1,2), (3,4), ...
    std::vector<double> energies(static_cast<size_t>(replicas), 0.0);
    for (const Replica& r : mine) energies[r.index] = r.walk->energy();
    sum_over_ranks(energies, comm);
    for (int t = static_cast<int>(round % 2); t + 1 < replicas; t += 2) {
      const int a = replica_at[t], b = replica_at[t + 1];
      const double delta = (1.0 / options.temperatures[t] - 1.0 / options.temperatures[t + 1]) *
                           (energies[a] - energies[b]);
      tried[t] += 1;
      if (delta >= 0 || exchange_rng.uniform() < std::exp(delta)) {
        std::swap(replica_at[t], replica_at[t + 1]);
        temperature_of[a] = t + 1;
        temperature_of[b] = t;
        taken[t] += 1;
      }
    }
    ++round;
    if (rank == 0 && options.progress) options.progress(done, total);
  }
  double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();

  // Every rank's sums, in one vector: blocks, SRO and counts of each temperature.
  std::vector<double> flat;
  for (const ThermoSums& s : sums) {
    for (const auto& b : s.blocks) flat.insert(flat.end(), b.begin(), b.end());
    flat.insert(flat.end(), s.sro_sum.begin(), s.sro_sum.end());
    flat.push_back(s.sro_count);
  }
  flat.push_back(static_cast<double>(attempted));
  sum_over_ranks(flat, comm);
  std::vector<double> slowest{seconds};
  if (comm && comm->size() > 1) {
    exadnn::Tensor t = exadnn::from_vector<double>(slowest);
    comm->allreduce_blocking(t, exadnn::dist::ReduceOp::max);
    seconds = t.data<double>()[0];
  }
  ReplicaExchangeResult result;
  size_t at = 0;
  for (int t = 0; t < replicas; ++t) {
    ThermoSums& s = sums[t];
    for (auto& b : s.blocks)
      for (double& v : b) v = flat[at++];
    for (double& v : s.sro_sum) v = flat[at++];
    s.sro_count = flat[at++];
    result.points.push_back(thermo_point(s, options.temperatures[t], lattice.sites()));
  }
  result.attempted_swaps = static_cast<int64_t>(flat[at]);
  result.seconds = seconds;
  for (size_t t = 0; t < tried.size(); ++t)
    result.exchange_acceptance.push_back(tried[t] > 0 ? taken[t] / tried[t] : 0.0);
  return result;
}

}  // namespace alloy
