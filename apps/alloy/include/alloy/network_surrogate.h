// Network surrogates of the energy per site, trained with exadnn's train::Trainer (Adam on the MSE
// of standardised targets):
//   features_mlp  an MLP on the per-site pair-count features (the cluster-expansion descriptors);
//   site_network  one MLP shared by every site, on the site's own species and the species counts
//                 of each of its shells (raw occupation, one-hot), summed over the sites — a
//                 network that learns its own features, size-extensive like the energy.
// An ensemble of K members (different seeds, each its own bootstrap sample) gives a mean and a
// spread; the spread is the surrogate's uncertainty for active learning.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "alloy/configuration.h"
#include "alloy/lattice.h"

namespace exadnn {
class StateDict;
}

namespace alloy {

enum class NetworkKind { features_mlp, site_network };

/// "features_mlp" or "site_network" (an error listing them otherwise).
NetworkKind parse_network_kind(const std::string& name);

struct NetworkOptions {
  NetworkKind kind = NetworkKind::features_mlp;
  std::vector<int64_t> hidden{32, 32};  ///< widths of the hidden layers (SiLU-like: tanh)
  int64_t epochs = 200;
  int64_t batch_size = 32;
  double lr = 3e-3;
  uint64_t seed = 1;
  bool bootstrap = false;  ///< train on a resample (with replacement) of the configurations
};

/// Figures of a surrogate on configurations with known energies.
struct FitQuality {
  double rmse_mev_per_site = 0;
  double r2 = 0;  ///< 1 − SS_res / SS_tot of the energies per site
};

class NetworkSurrogate {
 public:
  /// Trains on the total energies (eV) of `configurations` (at least 4).
  NetworkSurrogate(const Lattice& lattice, int species,
                   const std::vector<Occupation>& configurations,
                   const std::vector<double>& energies, const NetworkOptions& options);
  /// A surrogate trained elsewhere: the architecture of `options` (kind, hidden) with the
  /// weights and standardisation of `state` (what state() gave).
  NetworkSurrogate(const Lattice& lattice, int species, const NetworkOptions& options,
                   const exadnn::StateDict& state);
  ~NetworkSurrogate();
  NetworkSurrogate(NetworkSurrogate&&) noexcept;
  NetworkSurrogate& operator=(NetworkSurrogate&&) noexcept;

  /// Total energies (eV) of configurations, in one batched forward pass.
  std::vector<double> energies(const std::vector<Occupation>& configurations) const;
  /// The training loss (MSE of standardised targets) after the last epoch.
  double final_loss() const { return final_loss_; }
  /// Weights and standardisation, to send or store (exadnn tensors by name).
  exadnn::StateDict state() const;
  /// The names state() has for the architecture of `options` (what a receiver asks for).
  static std::vector<std::string> state_names(const Lattice& lattice, int species,
                                              const NetworkOptions& options);

 private:
  struct Net;
  std::unique_ptr<Net> net_;
  double final_loss_ = 0;
};

/// K surrogates of one kind, seeds options.seed + k, each on its own bootstrap sample.
class SurrogateEnsemble {
 public:
  SurrogateEnsemble(const Lattice& lattice, int species,
                    const std::vector<Occupation>& configurations,
                    const std::vector<double>& energies, const NetworkOptions& options,
                    int members);
  /// An ensemble of members trained elsewhere (e.g. by the instances of an ensemble module).
  explicit SurrogateEnsemble(std::vector<NetworkSurrogate> members);
  /// Per configuration: the members' mean total energy and their standard deviation (eV).
  void predict(const std::vector<Occupation>& configurations, std::vector<double>& mean,
               std::vector<double>& spread) const;
  int size() const { return static_cast<int>(members_.size()); }

 private:
  std::vector<NetworkSurrogate> members_;
};

/// RMSE (meV per site) and R² of predicted against reference total energies on `sites` sites.
FitQuality fit_quality(const std::vector<double>& predicted, const std::vector<double>& reference,
                       int64_t sites);

}  // namespace alloy
