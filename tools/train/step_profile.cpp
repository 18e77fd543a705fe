#include "step_profile.h"

#include <cstdio>

#include "exadnn/core/profiler.h"

namespace exadnn::cli {

StepProfile::StepProfile(bool on) : on_(on) {
  if (on_) profiler::enable(true);
}

StepProfile::~StepProfile() {
  if (on_) profiler::enable(false);
}

void StepProfile::start_epoch() {
  if (!on_) return;
  profiler::reset();
  steps_ = 0;
  start_ = last_step_end_ = std::chrono::steady_clock::now();
}

void StepProfile::end_step() {
  if (!on_) return;
  ++steps_;
  last_step_end_ = std::chrono::steady_clock::now();
  at_last_step_ = profiler::rows();  // the evaluation after the last step is not a step
}

void StepProfile::end_epoch() {
  if (!on_) return;
  const double wall = std::chrono::duration<double>(last_step_end_ - start_).count();
  std::fputs(profiler::format_table(at_last_step_, steps_, wall).c_str(), stdout);
  std::fflush(stdout);
}

}  // namespace exadnn::cli
