// The backward engine: accumulation, multiple consumers, retain_graph, no_grad, detach, hooks.
#include <cmath>

#include "testing.h"

using namespace exadnn;
using exadnn::testing::all_close;

namespace {
Tensor leaf(std::vector<double> v, const Shape& shape = {}) {
  return from_vector<double>(v, shape, TensorOptions(DType::f64).requires_grad());
}
}  // namespace

TEST(Engine, GradientOfProduct) {
  Tensor a = leaf({2.0}), b = leaf({5.0});
  Tensor y = sum(a * b);
  y.backward();
  EXPECT_TRUE(all_close(a.grad(), {5.0}, {0, 0}));
  EXPECT_TRUE(all_close(b.grad(), {2.0}, {0, 0}));
}

TEST(Engine, TensorUsedTwiceGetsSumOfGradients) {
  Tensor x = leaf({3.0});
  Tensor y = sum(x * x + x);  // dy/dx = 2x + 1
  y.backward();
  EXPECT_TRUE(all_close(x.grad(), {7.0}, {0, 0}));
}

TEST(Engine, DiamondGraph) {
  Tensor x = leaf({0.5, -1.0});
  Tensor h = tanh(x);
  Tensor y = sum(h * h + exp(h));  // dy/dx = (2h + e^h)(1 - h^2)
  y.backward();
  std::vector<double> expected;
  for (double v : {0.5, -1.0}) {
    const double hv = std::tanh(v);
    expected.push_back((2 * hv + std::exp(hv)) * (1 - hv * hv));
  }
  EXPECT_TRUE(all_close(x.grad(), expected, {1e-12, 1e-12}));
}

TEST(Engine, GradientsAccumulateAcrossBackwardCalls) {
  Tensor x = leaf({1.0, 2.0});
  sum(x * 3.0).backward();
  sum(x * 4.0).backward();
  EXPECT_TRUE(all_close(x.grad(), {7.0, 7.0}, {0, 0}));
  x.zero_grad();
  EXPECT_FALSE(x.grad().defined());
}

TEST(Engine, RetainGraphAllowsSecondBackward) {
  Tensor x = leaf({2.0});
  Tensor y = sum(exp(x) * x);
  y.backward(Tensor(), /*retain_graph=*/true);
  y.backward();
  const double once = std::exp(2.0) * 3.0;
  EXPECT_TRUE(all_close(x.grad(), {2 * once}, {1e-12, 0}));
}

TEST(Engine, SecondBackwardWithoutRetainGraphFails) {
  Tensor x = leaf({2.0});
  Tensor y = sum(x * x);
  y.backward();
  EXPECT_EXADNN_ERROR(y.backward(), "retain_graph");
}

TEST(Engine, NonScalarOutputNeedsExplicitGradient) {
  Tensor x = leaf({1.0, 2.0});
  Tensor y = x * 2.0;
  EXPECT_EXADNN_ERROR(y.backward(), "backward", "[2]");
  y.backward(from_vector<double>({1.0, 10.0}));
  EXPECT_TRUE(all_close(x.grad(), {2.0, 20.0}, {0, 0}));
}

TEST(Engine, NoGradGuardRecordsNothing) {
  Tensor x = leaf({1.0});
  Tensor y;
  {
    NoGradGuard guard;
    y = x * 2.0;
    EXPECT_FALSE(GradMode::is_enabled());
  }
  EXPECT_TRUE(GradMode::is_enabled());
  EXPECT_FALSE(y.requires_grad());
  EXPECT_EQ(y.grad_fn(), nullptr);
  EXPECT_EXADNN_ERROR(sum(y).backward(), "does not require grad");
}

TEST(Engine, DetachCutsTheGraphButSharesStorage) {
  Tensor x = leaf({3.0});
  Tensor d = (x * x).detach();
  EXPECT_FALSE(d.requires_grad());
  Tensor y = sum(d * x);  // d is a constant 9
  y.backward();
  EXPECT_TRUE(all_close(x.grad(), {9.0}, {0, 0}));
  Tensor e = x.detach();
  EXPECT_TRUE(e.shares_storage_with(x));
}

TEST(Engine, OnlyLeavesAccumulate) {
  Tensor x = leaf({1.0});
  Tensor h = x * 2.0;
  sum(h * h).backward();
  EXPECT_TRUE(x.is_leaf());
  EXPECT_FALSE(h.is_leaf());
  EXPECT_FALSE(h.grad().defined());
  EXPECT_TRUE(all_close(x.grad(), {8.0}, {0, 0}));
  EXPECT_EXADNN_ERROR(h.requires_grad_(false), "leaf");
}

TEST(Engine, GradHookSeesAccumulatedGradient) {
  Tensor x = leaf({1.0, 1.0});
  std::vector<double> seen;
  int calls = 0;
  x.register_grad_hook([&](const Tensor& g) {
    ++calls;
    seen = exadnn::testing::values(g);
  });
  sum(x * 5.0).backward();
  EXPECT_EQ(calls, 1);
  EXPECT_EQ(seen, (std::vector<double>{5.0, 5.0}));
}

TEST(Engine, RemovedGradHookIsNotCalled) {
  Tensor x = leaf({1.0});
  int kept = 0, removed = 0;
  x.register_grad_hook([&](const Tensor&) { ++kept; });
  const uint64_t id = x.register_grad_hook([&](const Tensor&) { ++removed; });
  x.remove_grad_hook(id);
  x.remove_grad_hook(id);  // twice is harmless
  sum(x * 2.0).backward();
  EXPECT_EQ(kept, 1);
  EXPECT_EQ(removed, 0);
}

TEST(Engine, QueuedCallbackRunsAfterEveryLeafHasItsGradient) {
  Tensor a = leaf({1.0}), b = leaf({2.0});
  std::vector<std::string> events;
  bool b_had_grad_in_callback = false;
  a.register_grad_hook([&](const Tensor&) {
    events.push_back("a");
    autograd::queue_callback([&] {
      events.push_back("callback");
      b_had_grad_in_callback = b.grad().defined();
    });
  });
  b.register_grad_hook([&](const Tensor&) { events.push_back("b"); });
  sum(a * b * 3.0).backward();
  ASSERT_EQ(events.size(), 3u);
  EXPECT_EQ(events.back(), "callback");
  EXPECT_TRUE(b_had_grad_in_callback);
  EXPECT_EXADNN_ERROR(autograd::queue_callback([] {}), "no backward pass");
}

TEST(Engine, GradFunctionDoesNotTouchLeafGrads) {
  Tensor x = leaf({2.0}), w = leaf({3.0});
  Tensor y = sum(x * w * w);
  std::vector<Tensor> g = autograd::grad({y}, {w});
  EXPECT_TRUE(all_close(g[0], {12.0}, {0, 0}));
  EXPECT_FALSE(x.grad().defined());
  EXPECT_FALSE(w.grad().defined());
}

TEST(Engine, GradientFlowsThroughDtypeConversion) {
  Tensor x = from_vector<float>({1.0f, 2.0f}, {}, TensorOptions(DType::f32).requires_grad());
  Tensor y = sum(x.to(DType::f64) * 3.0);
  y.backward();
  EXPECT_EQ(x.grad().dtype(), DType::f32);
  EXPECT_TRUE(all_close(x.grad(), {3.0, 3.0}, {0, 0}));
}

TEST(Engine, LongChainRunsWithoutRecursion) {
  Tensor x = leaf({1.0});
  Tensor y = x;
  for (int i = 0; i < 5000; ++i) y = y * 1.0001;
  sum(y).backward();
  EXPECT_TRUE(all_close(x.grad(), {std::pow(1.0001, 5000)}, {1e-10, 0}));
}

TEST(Engine, ManyRootsAtOnce) {
  Tensor x = leaf({1.0, 2.0});
  Tensor a = sum(x * x), b = sum(x * 3.0);
  autograd::backward({a, b}, {});
  EXPECT_TRUE(all_close(x.grad(), {5.0, 7.0}, {0, 0}));
}

TEST(Engine, IntegerTensorsCannotRequireGrad) {
  Tensor i = zeros({2}, DType::i32);
  EXPECT_EXADNN_ERROR(i.requires_grad_(), "requires_grad_", "i32");
}
