// `exadnn train` and `exadnn eval`: the training loop behind the command line.
#pragma once

#include <memory>
#include <string>

#include "config.h"
#include "exadnn/train/datasets.h"

namespace exadnn::cli {

struct TrainOptions {
  std::string metrics_out;     ///< JSON metrics file ("" = none)
  std::string checkpoint_dir;  ///< where last.ckpt is written after each epoch ("" = none)
  bool resume = false;         ///< continue from checkpoint_dir/last.ckpt
  bool overwrite = false;      ///< replace a last.ckpt already in checkpoint_dir (else refused)
  std::string plot;            ///< PNG of loss and accuracy per epoch ("" = none)
};

using train::load_training_data;  ///< the config's datasets (exadnn/train/datasets.h)
using train::TrainingData;

/// Trains as configured; prints progress; returns the final test accuracy.
double train(const TrainConfig& config, const TrainOptions& options);

/// Scores the model saved in a checkpoint on its config's test set; returns the accuracy.
double evaluate_checkpoint(const std::string& checkpoint_path, int64_t batch_size = 1000);

}  // namespace exadnn::cli
