// `exadnn train --profile`: after each epoch, where its training steps' wall time went (the
// profiler's per-layer forward/backward, optimizer and data rows; profiler.h) and the page faults
// its steps took, then starts over.
#pragma once

#include <chrono>
#include <cstdint>
#include <vector>

#include "exadnn/core/profiler.h"

namespace exadnn::cli {

class StepProfile {
 public:
  /// Turns the process's profiler on when `on`; every call below is a no-op otherwise.
  explicit StepProfile(bool on);
  /// Turns the profiler off again (a later run in the process is not profiled unless asked).
  ~StepProfile();
  StepProfile(const StepProfile&) = delete;
  StepProfile& operator=(const StepProfile&) = delete;
  /// Forgets what was measured before (the last epoch's evaluation, start-up).
  void start_epoch();
  /// Counts one training step and notes when it ended.
  void end_step();
  /// Prints the table of the epoch's steps (from the epoch's start to its last step's end) and
  /// their minor page faults a step.
  void end_epoch();

 private:
  bool on_;
  int64_t steps_ = 0;
  std::chrono::steady_clock::time_point start_, last_step_end_;
  std::vector<profiler::Row> at_last_step_;
  long faults_at_start_ = 0, faults_at_last_step_ = 0;
};

}  // namespace exadnn::cli
