// Monte Carlo driven by a network surrogate: a network's energy change of a swap costs a forward
// pass, so the changes of many candidate swaps are evaluated in one batch. The candidates are
// tried in turn against the current configuration, each an ordinary Metropolis step; once an
// unlike swap is accepted the rest are dropped (they were computed for a configuration that no
// longer is) and a new batch is drawn. The chain is thus the one-proposal-at-a-time chain.
#pragma once

#include <cstdint>
#include <utility>
#include <vector>

#include "alloy/kawasaki.h"
#include "alloy/network_surrogate.h"

namespace alloy {

/// Energies of configurations, and the changes of many swaps of one configuration, in one call.
class BatchSwapEnergy {
 public:
  virtual ~BatchSwapEnergy() = default;
  virtual double total(const Occupation& occupation) const = 0;
  /// The energy change of each swap (i, j), each applied alone to `occupation`.
  virtual std::vector<double> swap_changes(
      const Occupation& occupation,
      const std::vector<std::pair<int64_t, int64_t>>& swaps) const = 0;
};

/// The mean of an ensemble's members as a BatchSwapEnergy.
class EnsembleEnergy : public BatchSwapEnergy {
 public:
  /// `ensemble` must outlive this.
  explicit EnsembleEnergy(const SurrogateEnsemble& ensemble) : ensemble_(ensemble) {}
  double total(const Occupation& occupation) const override;
  std::vector<double> swap_changes(
      const Occupation& occupation,
      const std::vector<std::pair<int64_t, int64_t>>& swaps) const override;

 private:
  const SurrogateEnsemble& ensemble_;
};

/// Kawasaki samplers under `energy`, `batch` candidates a forward pass (`lattice` and `energy`
/// must outlive them).
SamplerFactory batched_sampler(const Lattice& lattice, const BatchSwapEnergy& energy,
                               int batch = 32);

}  // namespace alloy
