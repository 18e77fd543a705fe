// `exadnn train` and `exadnn eval`: a train::Trainer with the command line's output — the run's
// header (model, data, schedule, job), the progress bar, the final line and the plot.
#pragma once

#include <cstdint>
#include <string>

#include "exadnn/train/config.h"
#include "exadnn/train/options.h"

namespace exadnn::cli {

/// Trains as configured; prints progress; returns the final test accuracy.
double train(const train::TrainConfig& config, const train::TrainOptions& options);

/// Scores the model saved in a checkpoint on its config's test set; prints and returns the
/// accuracy. With `metrics_out`, writes a classifier's per-class figures and confusion matrix
/// (train::evaluate_checkpoint) and says where.
double evaluate_checkpoint(const std::string& checkpoint_path, int64_t batch_size = 1000,
                           const std::string& metrics_out = "");

}  // namespace exadnn::cli
