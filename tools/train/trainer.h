// `exadnn train` and `exadnn eval`: the training loop behind the command line.
#pragma once

#include <memory>
#include <string>

#include "config.h"
#include "exadnn/train/datasets.h"
#include "exadnn/train/options.h"

namespace exadnn::cli {

using train::TrainOptions;  ///< the run's output files (exadnn/train/options.h)

using train::load_training_data;  ///< the config's datasets (exadnn/train/datasets.h)
using train::TrainingData;

/// Trains as configured; prints progress; returns the final test accuracy.
double train(const TrainConfig& config, const TrainOptions& options);

/// Scores the model saved in a checkpoint on its config's test set; returns the accuracy.
double evaluate_checkpoint(const std::string& checkpoint_path, int64_t batch_size = 1000);

}  // namespace exadnn::cli
