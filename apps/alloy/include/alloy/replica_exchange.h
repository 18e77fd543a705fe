// Replica-exchange Monte Carlo (parallel tempering) of an alloy: one replica per temperature, each
// walking by Kawasaki swaps under Metropolis, replicas of neighbouring temperatures exchanging
// configurations every few sweeps with probability min(1, exp((β_i − β_j)(E_i − E_j))). Replicas
// are spread over the ranks of an MPI communicator (replica r on rank r mod P); the exchanges are
// decided alike on every rank from the gathered energies and one shared random stream, so a seed
// gives the same numbers on any number of ranks.
#pragma once

#include <cstdint>
#include <functional>
#include <vector>

#include "alloy/configuration.h"
#include "alloy/kawasaki.h"
#include "alloy/lattice.h"
#include "alloy/observables.h"

namespace exadnn::dist {
class Communicator;
}

namespace alloy {

struct ReplicaExchangeOptions {
  std::vector<double> temperatures;  ///< kT in eV, ascending, one replica each
  int64_t equilibration_sweeps = 1000;
  int64_t measurement_sweeps = 5000;  ///< measured after every sweep
  int64_t sweeps_per_exchange = 10;
  int blocks = 20;  ///< blocks of measurement sweeps for the error bars
  uint64_t seed = 1;
  /// Called on rank 0 after each exchange round: sweeps done, sweeps in all.
  std::function<void(int64_t done, int64_t total)> progress;
  /// With snapshot_every > 0: called every that many measurement sweeps for each of this rank's
  /// replicas with its temperature's index, configuration and energy.
  int64_t snapshot_every = 0;
  std::function<void(int temperature, const Occupation&, double energy)> on_snapshot;
};

struct ReplicaExchangeResult {
  std::vector<ThermoPoint> points;          ///< per temperature, ascending
  std::vector<double> exchange_acceptance;  ///< per neighbouring pair of temperatures
  int64_t attempted_swaps = 0;              ///< all ranks' Kawasaki proposals
  double seconds = 0;                       ///< wall time of the sweeps (slowest rank)
};

/// Runs replica exchange of `composition` on `lattice`, each replica's sampler made by `make`;
/// the order parameter is long_range_order (B2 on bcc, L1₀ on fcc, any species count). With `comm`
/// (an exadnn MPI communicator) the replicas are spread over its ranks and every rank returns the
/// same result.
ReplicaExchangeResult replica_exchange(const Lattice& lattice, const Composition& composition,
                                       const SamplerFactory& make,
                                       const ReplicaExchangeOptions& options,
                                       const exadnn::dist::Communicator* comm = nullptr);

/// The same with Kawasaki walks under `energy` (swap_sampler).
ReplicaExchangeResult replica_exchange(const Lattice& lattice, const Composition& composition,
                                       const SwapEnergy& energy,
                                       const ReplicaExchangeOptions& options,
                                       const exadnn::dist::Communicator* comm = nullptr);

}  // namespace alloy
