#include "step_profile.h"

#include <sys/resource.h>

#include <cstdio>

#include "exadnn/core/profiler.h"

namespace exadnn::cli {

namespace {

// Page faults the process has taken so far that needed no disk (the kernel mapping memory
// touched for the first time, or again after it was given back).
long minor_page_faults() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return usage.ru_minflt;
}

}  // namespace

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
  faults_at_start_ = faults_at_last_step_ = minor_page_faults();
}

void StepProfile::end_step() {
  if (!on_) return;
  ++steps_;
  last_step_end_ = std::chrono::steady_clock::now();
  faults_at_last_step_ = minor_page_faults();
  at_last_step_ = profiler::rows();  // the evaluation after the last step is not a step
}

void StepProfile::end_epoch() {
  if (!on_) return;
  const double wall = std::chrono::duration<double>(last_step_end_ - start_).count();
  std::fputs(profiler::format_table(at_last_step_, steps_, wall).c_str(), stdout);
  // A warm step should fault no pages in: memory given back and taken again every step is time
  // the table above spreads over the layers (docs/performance.md, "the C library's heap").
  const long faults = faults_at_last_step_ - faults_at_start_;
  std::printf("  page faults: %.1f a step (%ld over the epoch's steps, all threads)\n",
              steps_ > 0 ? static_cast<double>(faults) / static_cast<double>(steps_) : 0.0, faults);
  std::fflush(stdout);
}

}  // namespace exadnn::cli
