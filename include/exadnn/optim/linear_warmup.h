// LinearWarmup: the learning rate rises linearly from start_factor·base_lr to base_lr over
// warmup_steps steps (torch LinearLR with end_factor 1), then stays — or hands over to another
// schedule, which then runs from its epoch 0 (torch SequentialLR([LinearLR, after], [warmup])).
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "exadnn/optim/lr_scheduler.h"

namespace exadnn::optim {

/// Linear warm-up, optionally followed by another schedule of the same optimizer:
/// `LinearWarmup(opt, 5, 0.1, std::make_unique<CosineAnnealingLR>(opt, 95))`.
class LinearWarmup : public LRScheduler {
 public:
  /// warmup_steps >= 1; start_factor in (0, 1]; `after` (optional) takes over at step
  /// warmup_steps and must schedule the same optimizer.
  LinearWarmup(Optimizer& optimizer, int64_t warmup_steps, double start_factor,
               std::unique_ptr<LRScheduler> after = nullptr);

  /// Advances the warm-up, or the following schedule once the warm-up is over.
  void step() override;
  /// Steps until the full learning rate.
  int64_t warmup_steps() const { return warmup_steps_; }
  /// Fraction of the learning rate at step 0.
  double start_factor() const { return start_factor_; }
  /// The schedule that follows the warm-up, or null.
  LRScheduler* after() const { return after_.get(); }

  /// The base entries, plus the following schedule's under "after.".
  StateDict state_dict() const override;

 protected:
  double chained_lr() const override;
  double closed_form_lr(int64_t epoch) const override;
  void check_state(const StateDict& state, const std::string& prefix) const override;
  void restore_state(const StateDict& state) override;

 private:
  int64_t warmup_steps_;
  double start_factor_;
  std::unique_ptr<LRScheduler> after_;
};

}  // namespace exadnn::optim
