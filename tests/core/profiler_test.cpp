// profiler: regions keep their own (exclusive) time, labels of nested layers, the table.
#include <gtest/gtest.h>

#include <chrono>
#include <thread>

#include "exadnn/core/profiler.h"
#include "profiler_on.h"

using namespace exadnn;
using exadnn::testing::ProfilerOn;

namespace {

const profiler::Row* find(const std::vector<profiler::Row>& rows, const std::string& label,
                          profiler::Phase phase) {
  for (const auto& r : rows)
    if (r.label == label && r.phase == phase) return &r;
  return nullptr;
}

void sleep_ms(int ms) {
  std::this_thread::sleep_for(std::chrono::milliseconds(ms));
}

}  // namespace

TEST(Profiler, OffByDefaultRecordsNothing) {
  profiler::reset();
  ASSERT_FALSE(profiler::enabled());
  {
    const profiler::Region r(profiler::Phase::optimizer, "optimizer");
    const profiler::LayerScope layer("0 Linear");
    EXPECT_EQ(profiler::current_layer(), nullptr);
  }
  EXPECT_TRUE(profiler::rows().empty());
}

TEST(Profiler, ANestedRegionsTimeIsNotCountedInItsParent) {
  const ProfilerOn on;
  {
    const profiler::Region outer(profiler::Phase::forward, "outer");
    sleep_ms(10);
    const profiler::Region inner(profiler::Phase::forward, "inner");
    sleep_ms(100);
  }
  const auto rows = profiler::rows();
  const auto* outer = find(rows, "outer", profiler::Phase::forward);
  const auto* inner = find(rows, "inner", profiler::Phase::forward);
  ASSERT_NE(outer, nullptr);
  ASSERT_NE(inner, nullptr);
  EXPECT_EQ(outer->calls, 1);
  EXPECT_GE(inner->seconds, 0.1);
  EXPECT_GE(outer->seconds, 0.01);
  // The inner 100 ms are the inner region's: counted in the outer one too, it would hold at least
  // 110 ms, more than the inner; its own 10 ms may overshoot on a loaded machine by far more than
  // a fixed bound would allow.
  EXPECT_LT(outer->seconds, inner->seconds);
}

TEST(Profiler, LayerLabelsNestAndAreWhatNewNodesCarry) {
  const ProfilerOn on;
  {
    const profiler::LayerScope block("4 Residual");
    EXPECT_EQ(*profiler::current_layer(), "4 Residual");
    {
      const profiler::LayerScope conv("0 Conv2d");
      EXPECT_EQ(*profiler::current_layer(), "4 Residual/0 Conv2d");
    }
    EXPECT_EQ(*profiler::current_layer(), "4 Residual");
  }
  EXPECT_EQ(profiler::current_layer(), nullptr);
  const auto rows = profiler::rows();
  EXPECT_NE(find(rows, "4 Residual/0 Conv2d", profiler::Phase::forward), nullptr);
  EXPECT_NE(find(rows, "4 Residual", profiler::Phase::forward), nullptr);
}

TEST(Profiler, CallsAddUpAndResetForgets) {
  const ProfilerOn on;
  for (int i = 0; i < 3; ++i) const profiler::Region r(profiler::Phase::optimizer, "optimizer");
  auto rows = profiler::rows();
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0].calls, 3);
  profiler::reset();
  EXPECT_TRUE(profiler::rows().empty());
}

TEST(Profiler, TableShowsMillisecondsPerStepAndTheUnmeasuredRest) {
  // 10 steps of 10 ms; the layer took 40 ms forward and 20 ms backward in all, the optimizer
  // 10 ms: per step 4 + 2 = 6 ms for the layer, 1 ms for the optimizer, 3 ms unmeasured.
  const std::vector<profiler::Row> rows{{"0 Linear", profiler::Phase::forward, 10, 0.04},
                                        {"0 Linear", profiler::Phase::backward, 10, 0.02},
                                        {"optimizer", profiler::Phase::optimizer, 10, 0.01}};
  const std::string table = profiler::format_table(rows, 10, 0.1);
  EXPECT_NE(table.find("10.000 ms per step"), std::string::npos) << table;
  EXPECT_NE(table.find("4.000        2.000        6.000    60.0 %  0 Linear"), std::string::npos)
      << table;
  EXPECT_NE(table.find("1.000    10.0 %  (optimizer)"), std::string::npos) << table;
  EXPECT_NE(table.find("3.000    30.0 %  (not in any region"), std::string::npos) << table;
}
