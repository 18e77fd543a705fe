// The replay buffer: bounded (the oldest examples leave a full buffer), draws distinct examples,
// keeps each input with its own target, and refuses bad sizes and empty draws.
#include <gtest/gtest.h>

#include <exadnn/exadnn.h>

#include <set>
#include <vector>

#include "climate/replay_buffer.h"

namespace climate {
namespace {

// Pushes examples k = first .. last−1: input [2, 3] all k, target [2] all −k.
void push_range(ReplayBuffer& buffer, int first, int last) {
  for (int k = first; k < last; ++k) {
    const std::vector<float> x(6, static_cast<float>(k)), y(2, static_cast<float>(-k));
    buffer.push(x.data(), y.data());
  }
}

TEST(ReplayBuffer, KeepsTheNewestUpToItsCapacity) {
  ReplayBuffer buffer(5, {2, 3}, {2});
  push_range(buffer, 0, 3);
  EXPECT_EQ(buffer.size(), 3);
  push_range(buffer, 3, 12);
  EXPECT_EQ(buffer.size(), 5);
  EXPECT_EQ(buffer.pushed(), 12);
  const auto newest = buffer.newest(10);  // fewer held: all five, oldest first
  ASSERT_EQ(newest->size(), 5);
  const std::vector<float> x = exadnn::to_vector<float>(newest->inputs());
  const std::vector<float> y = exadnn::to_vector<float>(newest->targets());
  for (int k = 0; k < 5; ++k) {
    EXPECT_EQ(x[k * 6 + 5], 7 + k);
    EXPECT_EQ(y[k * 2 + 1], -(7 + k));
  }
  EXPECT_EQ(newest->input_shape(), (exadnn::Shape{2, 3}));
  EXPECT_EQ(newest->target_shape(), (exadnn::Shape{2}));
}

TEST(ReplayBuffer, DrawsDistinctExamplesWithTheirTargets) {
  ReplayBuffer buffer(50, {2, 3}, {2});
  push_range(buffer, 0, 80);  // holds 30 .. 79
  std::set<int> seen_all;
  for (uint64_t seed = 1; seed <= 20; ++seed) {
    const auto draw = buffer.draw(10, seed);
    ASSERT_EQ(draw->size(), 10);
    const std::vector<float> x = exadnn::to_vector<float>(draw->inputs());
    const std::vector<float> y = exadnn::to_vector<float>(draw->targets());
    std::set<int> seen;
    for (int k = 0; k < 10; ++k) {
      const int id = static_cast<int>(x[k * 6]);
      EXPECT_GE(id, 30);
      EXPECT_LT(id, 80);
      EXPECT_EQ(y[k * 2], -id);
      seen.insert(id);
      seen_all.insert(id);
    }
    EXPECT_EQ(seen.size(), 10u) << "seed " << seed;
  }
  EXPECT_GT(seen_all.size(), 40u);  // 200 picks from 50 reach nearly all of them
  EXPECT_EQ(buffer.draw(100, 1)->size(), 50);
}

TEST(ReplayBuffer, RefusesBadSizesAndEmptyDraws) {
  EXPECT_THROW(ReplayBuffer(0, {2}, {2}), exadnn::Error);
  EXPECT_THROW(ReplayBuffer(3, {}, {2}), exadnn::Error);
  EXPECT_THROW(ReplayBuffer(3, {2}, {0}), exadnn::Error);
  ReplayBuffer buffer(3, {2}, {1});
  EXPECT_THROW(buffer.draw(1, 1), exadnn::Error);
  EXPECT_THROW(buffer.newest(1), exadnn::Error);
  push_range(buffer, 0, 1);
  EXPECT_THROW(buffer.draw(0, 1), exadnn::Error);
}

}  // namespace
}  // namespace climate
