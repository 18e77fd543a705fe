#include "alloy/batched_sampler.h"

#include <cmath>
#include <stdexcept>

namespace alloy {

double EnsembleEnergy::total(const Occupation& occupation) const {
  std::vector<double> mean, spread;
  ensemble_.predict({occupation}, mean, spread);
  return mean[0];
}

std::vector<double> EnsembleEnergy::swap_changes(
    const Occupation& occupation, const std::vector<std::pair<int64_t, int64_t>>& swaps) const {
  std::vector<Occupation> states{occupation};  // the current one first, then one per swap
  for (const auto& [i, j] : swaps) {
    states.push_back(occupation);
    std::swap(states.back()[i], states.back()[j]);
  }
  std::vector<double> mean, spread;
  ensemble_.predict(states, mean, spread);
  std::vector<double> changes;
  for (size_t k = 1; k < mean.size(); ++k) changes.push_back(mean[k] - mean[0]);
  return changes;
}

namespace {

class BatchedSampler : public Sampler {
 public:
  BatchedSampler(const Lattice& lattice, Occupation start, const BatchSwapEnergy& energy, int batch)
      : lattice_(lattice), occupation_(std::move(start)), model_(energy), batch_(batch) {
    energy_ = model_.total(occupation_);
  }

  void sweep(double kt, Rng& rng) override {
    const double beta = 1.0 / kt;
    int64_t left = lattice_.sites();
    std::vector<std::pair<int64_t, int64_t>> unlike;
    std::vector<int64_t> order;  // for each unlike candidate: proposals drawn up to it
    while (left > 0) {
      // Draw up to `batch` unlike candidates; like pairs between them are null moves.
      unlike.clear();
      order.clear();
      int64_t drawn = 0;
      while (left > 0 && static_cast<int>(unlike.size()) < batch_) {
        --left;
        ++drawn;
        const int64_t i = rng.below(static_cast<uint32_t>(lattice_.sites()));
        const auto nearest = lattice_.neighbours(0, i);
        const int64_t j = nearest[rng.below(static_cast<uint32_t>(nearest.size()))];
        if (occupation_[i] != occupation_[j]) {
          unlike.push_back({i, j});
          order.push_back(drawn);
        }
      }
      if (unlike.empty()) continue;
      const std::vector<double> changes = model_.swap_changes(occupation_, unlike);
      for (size_t k = 0; k < unlike.size(); ++k) {
        if (changes[k] <= 0.0 || rng.uniform() < std::exp(-beta * changes[k])) {
          std::swap(occupation_[unlike[k].first], occupation_[unlike[k].second]);
          energy_ += changes[k];
          // Every proposal drawn after this one was judged against the old configuration: drawn
          // again (like pairs too: a pair that was like may not be any more).
          left += drawn - order[k];
          break;
        }
      }
    }
  }
  double energy() const override { return energy_; }
  const Occupation& occupation() const override { return occupation_; }

 private:
  const Lattice& lattice_;
  Occupation occupation_;
  const BatchSwapEnergy& model_;
  int batch_;
  double energy_ = 0;
};

}  // namespace

SamplerFactory batched_sampler(const Lattice& lattice, const BatchSwapEnergy& energy, int batch) {
  if (batch < 1) throw std::invalid_argument("alloy: a batch of candidate swaps needs 1 or more");
  return [&lattice, &energy, batch](Occupation start) -> std::unique_ptr<Sampler> {
    return std::make_unique<BatchedSampler>(lattice, std::move(start), energy, batch);
  };
}

}  // namespace alloy
