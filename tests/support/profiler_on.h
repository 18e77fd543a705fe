// Turns the profiler on, with nothing measured, for one test; off and empty after it.
#pragma once

#include "exadnn/core/profiler.h"

namespace exadnn::testing {

struct ProfilerOn {
  ProfilerOn() {
    profiler::reset();
    profiler::enable(true);
  }
  ~ProfilerOn() {
    profiler::enable(false);
    profiler::reset();
  }
  ProfilerOn(const ProfilerOn&) = delete;
  ProfilerOn& operator=(const ProfilerOn&) = delete;
};

}  // namespace exadnn::testing
