// Subnormals flushed to zero (backend/denormals.h): a scope sets the calling thread and the
// OpenMP workers and puts the previous setting back; a subnormal operand then reads as 0. And the
// Trainer flushes while it trains (config flush_denormals, default true), the caller's setting
// untouched after.
#include "exadnn/backend/denormals.h"

#include <omp.h>

#include <atomic>

#include "testing.h"

namespace exadnn {
namespace {

// 1e-39f is subnormal: times 1 it stays 1e-39 unless DAZ/FTZ flush it.
float times_one(float x) {
  volatile float one = 1.0f;
  return x * one;
}

TEST(Denormals, ScopeFlushesOnEveryWorkerAndRestores) {
#if !defined(__SSE2__)
  GTEST_SKIP() << "FTZ/DAZ are x86 settings";
#endif
  set_flush_denormals(false);
  EXPECT_FALSE(flush_denormals());
  EXPECT_NE(times_one(1e-39f), 0.0f);
  {
    const FlushDenormalsScope flush(true);
    EXPECT_TRUE(flush_denormals());
    EXPECT_EQ(times_one(1e-39f), 0.0f);
    std::atomic<int> flushing{0}, workers{0};
#pragma omp parallel
    {
      ++workers;
      if (flush_denormals() && times_one(1e-39f) == 0.0f) ++flushing;
    }
    EXPECT_EQ(flushing.load(), workers.load());
    {
      const FlushDenormalsScope keep(false);  // nested: off, then on again
      EXPECT_NE(times_one(1e-39f), 0.0f);
    }
    EXPECT_TRUE(flush_denormals());
  }
  EXPECT_FALSE(flush_denormals());
  EXPECT_NE(times_one(1e-39f), 0.0f);
  std::atomic<int> kept{0};
#pragma omp parallel
  if (!flush_denormals()) ++kept;
  EXPECT_EQ(kept.load(), omp_get_max_threads());
}

}  // namespace
}  // namespace exadnn
