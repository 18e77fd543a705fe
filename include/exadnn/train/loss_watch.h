// Stops training at the first loss that is not finite, naming the epoch, the step and the last
// finite loss, instead of training on to NaN weights with exit code 0.
#pragma once

#include <cstdint>

namespace exadnn::train {

class LossWatch {
 public:
  /// Under fp16 loss scaling an overflowing step is skipped by the GradScaler and the run goes
  /// on at a lower scale; this many skipped non-finite steps in a row still stop it.
  static constexpr int64_t kMaxSkippedInARow = 50;

  /// Checks one step's loss (`skipped`: the GradScaler did not apply this step). Throws an
  /// exadnn::Error when the loss is NaN or infinite and the step was not a scaler's skip.
  void observe(double loss, int64_t epoch, int64_t step, bool skipped = false);

  /// Checks an epoch's mean loss when steps are not seen one by one (threaded modes).
  void observe_epoch(double mean_loss, int64_t epoch);

 private:
  double last_finite_ = 0.0;
  bool seen_finite_ = false;
  int64_t skipped_in_a_row_ = 0;
};

}  // namespace exadnn::train
