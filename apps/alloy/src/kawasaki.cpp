#include "alloy/kawasaki.h"

#include <cmath>
#include <stdexcept>

namespace alloy {

KawasakiWalk::KawasakiWalk(const Lattice& lattice, Occupation start, const SwapEnergy& energy)
    : lattice_(lattice), occupation_(std::move(start)), model_(energy) {
  if (static_cast<int64_t>(occupation_.size()) != lattice.sites())
    throw std::invalid_argument("alloy: a configuration of " + std::to_string(occupation_.size()) +
                                " sites on " + lattice.describe());
  energy_ = model_.total(lattice_, occupation_);
}

double KawasakiWalk::propose(Rng& rng) {
  i_ = rng.below(static_cast<uint32_t>(lattice_.sites()));
  const auto nearest = lattice_.neighbours(0, i_);
  j_ = nearest[rng.below(static_cast<uint32_t>(nearest.size()))];
  change_ =
      occupation_[i_] == occupation_[j_] ? 0.0 : model_.swap_change(lattice_, occupation_, i_, j_);
  return change_;
}

void KawasakiWalk::accept() {
  std::swap(occupation_[i_], occupation_[j_]);
  energy_ += change_;
}

double metropolis_sweeps(WalkableSystem& walk, double kt, int64_t sweeps, Rng& rng) {
  if (!(kt > 0)) throw std::invalid_argument("alloy: a Metropolis temperature must be > 0 eV");
  const double beta = 1.0 / kt;
  int64_t moves = 0, accepted = 0;
  const int64_t proposals = sweeps * walk.sites();
  for (int64_t p = 0; p < proposals; ++p) {
    const double change = walk.propose(rng);
    if (change == 0.0) {  // a null move (like pair) or a swap costing nothing: always taken
      walk.accept();
      continue;
    }
    ++moves;
    if (change < 0.0 || rng.uniform() < std::exp(-beta * change)) {
      walk.accept();
      ++accepted;
    }
  }
  return moves > 0 ? static_cast<double>(accepted) / static_cast<double>(moves) : 0.0;
}

namespace {

class SwapSampler : public Sampler {
 public:
  SwapSampler(const Lattice& lattice, Occupation start, const SwapEnergy& energy)
      : walk_(lattice, std::move(start), energy) {}
  void sweep(double kt, Rng& rng) override { metropolis_sweeps(walk_, kt, 1, rng); }
  double energy() const override { return walk_.energy(); }
  const Occupation& occupation() const override { return walk_.occupation(); }

 private:
  KawasakiWalk walk_;
};

}  // namespace

SamplerFactory swap_sampler(const Lattice& lattice, const SwapEnergy& energy) {
  return [&lattice, &energy](Occupation start) -> std::unique_ptr<Sampler> {
    return std::make_unique<SwapSampler>(lattice, std::move(start), energy);
  };
}

}  // namespace alloy
