// Canonical Monte Carlo moves of an alloy: Kawasaki exchanges of nearest neighbours (a random site
// and a random one of its nearest neighbours swap species), which keep the composition. The energy
// change of a swap comes from a SwapEnergy: the pair model or linear surrogate exactly in
// O(neighbours), or another model.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>

#include "alloy/configuration.h"
#include "alloy/lattice.h"
#include "alloy/pair_energy.h"
#include "alloy/walkable.h"

namespace alloy {

/// The energy model a walk uses.
class SwapEnergy {
 public:
  virtual ~SwapEnergy() = default;
  virtual double total(const Lattice& lattice, const Occupation& occupation) const = 0;
  /// Energy change of exchanging the species of sites i and j (unlike species).
  virtual double swap_change(const Lattice& lattice, const Occupation& occupation, int64_t i,
                             int64_t j) const = 0;
};

/// A PairEnergy as a SwapEnergy (the oracle-driven and the linear-surrogate-driven walks).
class PairSwapEnergy : public SwapEnergy {
 public:
  explicit PairSwapEnergy(PairEnergy model) : model_(std::move(model)) {}
  double total(const Lattice& lattice, const Occupation& occupation) const override {
    return model_.energy(lattice, occupation);
  }
  double swap_change(const Lattice& lattice, const Occupation& occupation, int64_t i,
                     int64_t j) const override {
    return model_.swap_change(lattice, occupation, i, j);
  }
  const PairEnergy& model() const { return model_; }

 private:
  PairEnergy model_;
};

/// A configuration walking by nearest-neighbour swaps under an energy model. A proposal of two
/// like sites is a null move (energy change 0): it counts as an attempt, as in Kawasaki dynamics.
class KawasakiWalk : public WalkableSystem {
 public:
  /// `lattice` and `energy` must outlive the walk.
  KawasakiWalk(const Lattice& lattice, Occupation start, const SwapEnergy& energy);
  double energy() const override { return energy_; }
  double propose(Rng& rng) override;
  void accept() override;
  int64_t sites() const override { return lattice_.sites(); }
  const Occupation& occupation() const { return occupation_; }
  const Lattice& lattice() const { return lattice_; }
  /// Recomputes the energy from scratch (a check of the accumulated changes).
  double recount() const { return model_.total(lattice_, occupation_); }

 private:
  const Lattice& lattice_;
  Occupation occupation_;
  const SwapEnergy& model_;
  double energy_;
  int64_t i_ = 0, j_ = 0;  // the proposed swap
  double change_ = 0.0;
};

/// One replica of a Monte Carlo run: Metropolis sweeps at a temperature, its energy and state.
class Sampler {
 public:
  virtual ~Sampler() = default;
  /// One sweep (sites() proposals) at temperature `kt` (eV).
  virtual void sweep(double kt, Rng& rng) = 0;
  virtual double energy() const = 0;
  virtual const Occupation& occupation() const = 0;
};

/// Makes a replica's sampler from its starting configuration.
using SamplerFactory = std::function<std::unique_ptr<Sampler>(Occupation start)>;

/// Kawasaki walks under `energy`, one proposal at a time (`lattice` and `energy` must outlive
/// the samplers).
SamplerFactory swap_sampler(const Lattice& lattice, const SwapEnergy& energy);

/// Metropolis at temperature `kt` (eV): `sweeps` × sites proposals, each accepted with
/// probability min(1, exp(−ΔE / kt)). Returns the accepted fraction of the proposals that would
/// change the energy.
double metropolis_sweeps(WalkableSystem& walk, double kt, int64_t sweeps, Rng& rng);

}  // namespace alloy
