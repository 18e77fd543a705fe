#include "alloy/oracle.h"

#include <cmath>
#include <numbers>
#include <stdexcept>

namespace alloy {

double normal(Rng& rng) {
  const double u1 = 1.0 - rng.uniform();  // (0, 1]: log(u1) is finite
  const double u2 = rng.uniform();
  return std::sqrt(-2.0 * std::log(u1)) * std::cos(2.0 * std::numbers::pi * u2);
}

PairModelOracle::PairModelOracle(const Lattice& lattice, PairEnergy model, double noise_ev_per_atom,
                                 uint64_t seed)
    : lattice_(lattice), model_(std::move(model)), noise_(noise_ev_per_atom), rng_(seed) {
  if (!(noise_ev_per_atom >= 0) || !std::isfinite(noise_ev_per_atom))
    throw std::invalid_argument("alloy: pair_model noise must be a finite number >= 0 eV/atom");
  if (lattice.shells() < model_.shells())
    throw std::invalid_argument("alloy: the pair model has " + std::to_string(model_.shells()) +
                                " shells; the lattice " + lattice.describe() + " fewer");
}

std::string PairModelOracle::describe() const {
  return "pair_model (" + std::to_string(model_.shells()) + " shells, " +
         std::to_string(model_.species()) + " species, noise " + std::to_string(noise_ * 1000.0) +
         " meV/atom)";
}

double PairModelOracle::compute(const Occupation& occupation) {
  const double e = model_.energy(lattice_, occupation);
  if (noise_ == 0.0) return e;
  return e + noise_ * static_cast<double>(lattice_.sites()) * normal(rng_);
}

}  // namespace alloy
