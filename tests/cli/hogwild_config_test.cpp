// `distributed:` with the shared-memory modes (tools/train/hogwild_config.cpp).
#include <gtest/gtest.h>

#include "exadnn/train/config.h"
#include "testing.h"

namespace exadnn {
namespace {

const char* const kModel = "model:\n  - linear: {out: 3}\n";

TEST(HogwildConfig, ParsesTheSharedMemoryModes) {
  EXPECT_FALSE(train::parse_config(kModel, "c.yaml").hogwild.enabled);
  const train::TrainConfig c = train::parse_config(
      std::string(kModel) + "distributed: {mode: hogwild, threads: 4, accumulate: 8}\n", "c.yaml");
  EXPECT_TRUE(c.hogwild.enabled);
  EXPECT_EQ(c.hogwild.mode, "hogwild");
  EXPECT_EQ(c.hogwild.threads, 4);
  EXPECT_EQ(c.hogwild.accumulate, 8);
  const train::TrainConfig s = train::parse_config(
      kModel, "c.yaml", {"distributed.mode=threads_sync", "distributed.threads=3"});
  EXPECT_EQ(s.hogwild.mode, "threads_sync");
  EXPECT_EQ(s.hogwild.threads, 3);
  EXPECT_EQ(s.hogwild.accumulate, 1);
}

TEST(HogwildConfig, ReportsEveryProblemWithItsLine) {
  EXPECT_EXADNN_ERROR(
      train::parse_config(std::string(kModel) +
                              "distributed:\n  mode: threads_sync\n  threads: 0\n  accumulate: 2\n"
                              "  rate: 3\n",
                          "c.yaml"),
      "3 problems", "c.yaml:7: unknown key 'rate' in distributed",
      "c.yaml:5: 'distributed.threads' must be a whole number from 1 to 1024, got '0'",
      "c.yaml:6: 'distributed.accumulate' applies to hogwild and threads_locked");
}

}  // namespace
}  // namespace exadnn
