// The JSON metrics file of a run (TrainOptions::metrics_out): the final score, the median
// samples/s, each epoch's figures, threads, ranks, peak memory and batch size, and for a
// classifier its per-class figures (`classes`). Internal to the train library (the Trainer
// writes it).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "exadnn/train/class_metrics.h"
#include "exadnn/train/resume_point.h"

namespace exadnn::train::internal {

void write_metrics(const std::string& path, const std::vector<EpochRecord>& epochs,
                   double final_accuracy, int ranks, int64_t batch_size,
                   const ClassMetrics* classes = nullptr, const std::string& confusion_png = "");

}  // namespace exadnn::train::internal
