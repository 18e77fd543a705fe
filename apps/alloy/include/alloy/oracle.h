// The energy oracles: what the surrogate learns from and the Monte Carlo is checked against. One
// interface; every call is counted and timed, since oracle calls are the budget active learning
// spends. `pair_model` (exact and cheap, optionally noisy like a first-principles code) is the
// test oracle.
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <string>

#include "alloy/configuration.h"
#include "alloy/lattice.h"
#include "alloy/pair_energy.h"
#include "alloy/rng.h"

namespace alloy {

class EnergyOracle {
 public:
  virtual ~EnergyOracle() = default;
  /// Total energy of a configuration (eV); counted and timed.
  double energy(const Occupation& occupation) {
    const auto start = std::chrono::steady_clock::now();
    const double e = compute(occupation);
    seconds_ += std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    ++calls_;
    return e;
  }
  int64_t calls() const { return calls_; }
  /// Seconds spent in compute() over all calls.
  double seconds() const { return seconds_; }
  /// "pair_model (2 shells, noise 1.0 meV/atom)".
  virtual std::string describe() const = 0;

 protected:
  virtual double compute(const Occupation& occupation) = 0;

 private:
  int64_t calls_ = 0;
  double seconds_ = 0.0;
};

/// The exact pair model on a lattice, plus Gaussian noise of `noise_ev_per_atom` (standard
/// deviation per atom, 0 = exact) from its own seeded stream.
class PairModelOracle : public EnergyOracle {
 public:
  PairModelOracle(const Lattice& lattice, PairEnergy model, double noise_ev_per_atom = 0.0,
                  uint64_t seed = 0);
  std::string describe() const override;
  const PairEnergy& model() const { return model_; }

 protected:
  double compute(const Occupation& occupation) override;

 private:
  const Lattice& lattice_;
  PairEnergy model_;
  double noise_;
  Rng rng_;
};

/// A standard normal draw (Box–Muller) from `rng`.
double normal(Rng& rng);

}  // namespace alloy
