// Where a training run writes: metrics, checkpoints, a plot; and how it treats a checkpoint
// already there.
#pragma once

#include <string>

namespace exadnn::train {

struct TrainOptions {
  std::string metrics_out;  ///< JSON metrics file ("" = none)
  /// Where last.ckpt is written after each epoch, and best.ckpt (the same contents) after each
  /// epoch whose test score is higher than every earlier epoch's ("" = none).
  std::string checkpoint_dir;
  bool resume = false;     ///< continue from checkpoint_dir/last.ckpt
  bool overwrite = false;  ///< replace a last.ckpt already in checkpoint_dir (else refused)
  std::string plot;        ///< PNG of loss and accuracy per epoch ("" = none)
  bool profile = false;    ///< print each epoch's step time per layer and phase (profiler.h)
};

}  // namespace exadnn::train
