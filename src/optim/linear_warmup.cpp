// LinearWarmup: torch LinearLR (end factor 1) and, with a following schedule, SequentialLR.
#include "exadnn/optim/linear_warmup.h"

#include <algorithm>
#include <cmath>
#include <utility>

namespace exadnn::optim {

namespace {

const std::string kAfter = "after.";

}  // namespace

LinearWarmup::LinearWarmup(Optimizer& optimizer, int64_t warmup_steps, double start_factor,
                           std::unique_ptr<LRScheduler> after)
    : LRScheduler(optimizer, "optim::LinearWarmup"),
      warmup_steps_(warmup_steps),
      start_factor_(start_factor),
      after_(std::move(after)) {
  EXADNN_CHECK(warmup_steps >= 1, where(), "invalid warmup_steps ", warmup_steps,
               " (must be >= 1)");
  EXADNN_CHECK(start_factor > 0.0 && start_factor <= 1.0, where(), "invalid start_factor ",
               start_factor, " (must be in (0, 1])");
  if (after_) {
    EXADNN_CHECK(&after_->optimizer() == &optimizer, where(),
                 "the schedule that follows the warm-up drives another optimizer");
    // As SequentialLR: back to the initial rate, and the follower restarts at its epoch 0
    // when the warm-up ends.
    optimizer.set_lr(optimizer.initial_lr());
    after_->last_epoch_ -= 1;
  }
  initial_step();
}

void LinearWarmup::step() {
  if (!after_ || last_epoch_ + 1 < warmup_steps_) return LRScheduler::step();
  ++last_epoch_;
  if (last_epoch_ == warmup_steps_) {
    after_->jump_to(0);
  } else {
    after_->step();
  }
  apply(optimizer().lr());
}

double LinearWarmup::chained_lr() const {
  const double lr = optimizer().lr();
  const double start = start_factor_, end = 1.0;
  const double total = static_cast<double>(warmup_steps_);
  if (last_epoch_ == 0) return lr * start;
  if (last_epoch_ > warmup_steps_) return lr;
  return lr * (1.0 + (end - start) /
                         (total * start + static_cast<double>(last_epoch_ - 1) * (end - start)));
}

double LinearWarmup::closed_form_lr(int64_t epoch) const {
  const double start = start_factor_, end = 1.0;
  const double total = static_cast<double>(warmup_steps_);
  return base_lr() *
         (start + (end - start) * static_cast<double>(std::min(warmup_steps_, epoch)) / total);
}

StateDict LinearWarmup::state_dict() const {
  StateDict out = LRScheduler::state_dict();
  if (after_) out.merge(after_->state_dict(), kAfter);
  return out;
}

void LinearWarmup::check_state(const StateDict& state, const std::string& prefix) const {
  StateDict own;
  for (const auto& [entry, t] : state) {
    if (entry.compare(0, kAfter.size(), kAfter) != 0) {
      own.insert(entry, t);
    } else {
      EXADNN_CHECK(after_ != nullptr, where(), "cannot load state: unexpected entry '", prefix,
                   entry, "' (this warm-up has no following schedule)");
    }
  }
  LRScheduler::check_state(own, prefix);
  if (after_) after_->check_state(state.with_prefix_removed(kAfter), prefix + kAfter);
}

void LinearWarmup::restore_state(const StateDict& state) {
  LRScheduler::restore_state(state);
  if (after_) after_->restore_state(state.with_prefix_removed(kAfter));
}

}  // namespace exadnn::optim
