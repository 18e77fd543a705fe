#include "exadnn/train/loss_watch.h"

#include <cmath>
#include <string>

#include "exadnn/core/error.h"

namespace exadnn::train {

namespace {
std::string last_finite(bool seen, double value) {
  return seen ? detail::cat("the last finite loss was ", value)
              : std::string("no step had a finite loss");
}
constexpr const char* kHint =
    "; lower optimizer.lr, check the data for extreme values, or train in fp32";
}  // namespace

void LossWatch::observe(double loss, int64_t epoch, int64_t step, bool skipped) {
  if (std::isfinite(loss)) {
    last_finite_ = loss;
    seen_finite_ = true;
    skipped_in_a_row_ = 0;
    return;
  }
  if (skipped && ++skipped_in_a_row_ < kMaxSkippedInARow) return;
  throw Error("train",
              detail::cat("the loss became ", loss, " at epoch ", epoch, ", step ", step,
                          skipped ? detail::cat(" (", skipped_in_a_row_,
                                                " steps in a row skipped by the loss scaler)")
                                  : std::string(),
                          "; ", last_finite(seen_finite_, last_finite_), kHint));
}

void LossWatch::observe_epoch(double mean_loss, int64_t epoch) {
  if (std::isfinite(mean_loss)) {
    last_finite_ = mean_loss;
    seen_finite_ = true;
    return;
  }
  throw Error("train",
              detail::cat("the mean loss of epoch ", epoch, " is ", mean_loss, "; ",
                          last_finite(seen_finite_, last_finite_), " (an epoch's mean)", kHint));
}

}  // namespace exadnn::train
