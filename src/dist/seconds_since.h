// Wall seconds since a steady_clock time point: how dist's pipeline, fully sharded model and
// layer-cost measurement time their work. Internal to dist.
#pragma once

#include <chrono>

namespace exadnn::dist::detail {

using Clock = std::chrono::steady_clock;

inline double seconds_since(Clock::time_point t0) {
  return std::chrono::duration<double>(Clock::now() - t0).count();
}

}  // namespace exadnn::dist::detail
