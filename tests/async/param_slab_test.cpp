// ParameterSlab rebinding and the relaxed-atomic snapshot/publish pair.
#include <gtest/gtest.h>

#include <cmath>
#include <thread>

#include "async_testing.h"
#include "testing.h"

namespace exadnn {
namespace {

TEST(ParameterSlab, RebindsParametersKeepingValues) {
  manual_seed(3);
  auto model = testing::make_mlp(5, 7, 2);
  std::vector<std::vector<double>> before;
  for (const Tensor& p : model->parameters()) before.push_back(testing::values(p));
  async::ParameterSlab slab(*model);
  const auto params = model->parameters();
  ASSERT_EQ(slab.params().size(), params.size());
  for (size_t i = 0; i < params.size(); ++i) {
    EXPECT_TRUE(params[i].shares_storage_with(slab.flat()));
    EXPECT_EQ(params[i].offset(), slab.offsets()[i]);
    EXPECT_EQ(slab.offsets()[i] % 16, 0);
    EXPECT_TRUE(params[i].is_contiguous());
    EXPECT_EQ(testing::values(params[i]), before[i]);
  }
  // Weights 7x5=35 (48 with padding), bias 7 (16), weights 2x7=14 (16), bias 2 (16).
  EXPECT_EQ(slab.size(), 96);
  // Writing the slab is writing the model.
  slab.data()[slab.offsets()[1]] = 42.0f;
  EXPECT_EQ(params[1].data<float>()[0], 42.0f);
}

TEST(ParameterSlab, GathersGradientsAndZerosMissingOnes) {
  auto model = testing::make_mlp(3, 4, 2);
  async::ParameterSlab slab(*model);
  const Tensor x = ones({2, 3});
  sum((*model)(x)).backward();
  model->parameters()[3].zero_grad();  // last bias: no gradient
  std::vector<float> out(static_cast<size_t>(slab.size()), -1.0f);
  slab.gather_grads(out.data());
  const auto params = model->parameters();
  for (size_t i = 0; i < 3; ++i) {
    const std::vector<double> g = testing::values(params[i].grad());
    for (size_t j = 0; j < g.size(); ++j) EXPECT_EQ(out[slab.offsets()[i] + j], g[j]);
  }
  EXPECT_EQ(out[slab.offsets()[3]], 0.0f);
  EXPECT_EQ(out[slab.offsets()[3] + 1], 0.0f);
  EXPECT_EQ(out[slab.offsets()[3] + 2], -1.0f);  // padding untouched
}

TEST(ParameterSlab, RejectsNonF32Parameters) {
  auto model = testing::make_mlp(3, 4, 2);
  model->to(DType::f64);
  EXPECT_EXADNN_ERROR(async::ParameterSlab{*model}, "parameter '0.weight' is f64",
                      "f32 host parameters only");
}

TEST(AtomicOps, PublishWritesOnlyChangesAndKeepsOthers) {
  std::vector<float> shared = {1.0f, 2.0f, 3.0f, -0.0f};
  std::vector<float> local(4), snap(4);
  async::atomic_snapshot(shared.data(), local.data(), snap.data(), 4);
  EXPECT_EQ(local, shared);
  EXPECT_EQ(snap, shared);
  local[0] = 1.5f;   // changed by this worker only: written exactly
  local[1] = 2.25f;  // changed here and (below) by another worker: both changes kept
  local[3] = 0.0f;   // +0 differs from -0 in bits: written
  shared[1] = 4.0f;
  shared[2] = 7.0f;  // another worker's change to an element this worker left alone: kept
  async::atomic_publish(shared.data(), local.data(), snap.data(), 4);
  EXPECT_EQ(shared[0], 1.5f);
  EXPECT_EQ(shared[1], 4.25f);
  EXPECT_EQ(shared[2], 7.0f);
  EXPECT_FALSE(std::signbit(shared[3]));
}

TEST(AtomicOps, ConcurrentPublishersStayInBounds) {
  // Each of 4 threads adds 1 to every element 2000 times without locks: some increments may be
  // lost to a race (Hogwild), none may be invented, and at least one thread's count survives.
  constexpr int kThreads = 4, kRounds = 2000, kN = 64;
  std::vector<float> shared(kN, 0.0f);
  std::vector<std::thread> pool;
  for (int t = 0; t < kThreads; ++t)
    pool.emplace_back([&shared] {
      std::vector<float> local(kN), snap(kN);
      for (int r = 0; r < kRounds; ++r) {
        async::atomic_snapshot(shared.data(), local.data(), snap.data(), kN);
        for (float& v : local) v += 1.0f;
        async::atomic_publish(shared.data(), local.data(), snap.data(), kN);
      }
    });
  for (auto& t : pool) t.join();
  for (float v : shared) {
    EXPECT_GE(v, static_cast<float>(kRounds));
    EXPECT_LE(v, static_cast<float>(kThreads * kRounds));
  }
}

}  // namespace
}  // namespace exadnn
