// Finite-difference gradient checks (f64) of sum, mean, max, min and logsumexp over axis sets.
#include <gtest/gtest.h>

#include "op_test_util.h"

using namespace exadnn;
using exadnn::optest::distinct;
using exadnn::optest::leaf;
using exadnn::optest::uniform;
using exadnn::optest::Values;
using exadnn::testing::all_close;
using exadnn::testing::gradcheck;
using exadnn::testing::tolerance_for;

namespace {

using ReduceFn = std::function<Tensor(const Tensor&, const Axes&, bool)>;

struct AxisCase {
  Axes axes;
  bool keepdim;
};

// Axis sets over a [2,3,4] input: single, several, negative, all (empty and listed), unordered.
const std::vector<AxisCase>& axis_cases() {
  static const std::vector<AxisCase> cases{
      {{0}, false},    {{1}, true},    {{2}, false},       {{-1}, true},
      {{0, 2}, false}, {{2, 0}, true}, {{-1, -3}, false},  {{1, 2}, true},
      {{}, false},     {{}, true},     {{0, 1, 2}, false}, {{-3, -2, -1}, true}};
  return cases;
}

std::string describe(const AxisCase& c) {
  std::string s = "axes {";
  for (size_t i = 0; i < c.axes.size(); ++i) s += (i ? ", " : "") + std::to_string(c.axes[i]);
  return s + "} keepdim " + (c.keepdim ? "true" : "false");
}

// Gradient checks of f over every axis case for a contiguous, a strided, and a view input.
// `values(n, seed)` supplies the input values.
void check_reduction(const ReduceFn& f, const std::function<Values(int64_t, uint64_t)>& values) {
  uint64_t seed = 1;
  for (const AxisCase& c : axis_cases()) {
    auto g = [&](const std::vector<Tensor>& in) { return f(in[0], c.axes, c.keepdim); };
    EXPECT_TRUE(gradcheck(g, {leaf(values(24, seed++), {2, 3, 4})}))
        << "contiguous, " << describe(c);
    EXPECT_TRUE(gradcheck(g, {leaf(values(24, seed++), {2, 3, 4}, /*strided=*/true)}))
        << "strided, " << describe(c);
    // a [2,3,4] view of a [4,3,2] leaf through permute
    EXPECT_TRUE(gradcheck(
        [&](const std::vector<Tensor>& in) {
          return f(in[0].permute({2, 1, 0}), c.axes, c.keepdim);
        },
        {leaf(values(24, seed++), {4, 3, 2})}))
        << "permuted view, " << describe(c);
  }
  // 1-D, 0-d and a matrix reduced over its leading axis (column reduction) or its inner axis
  auto g0 = [&](const std::vector<Tensor>& in) { return f(in[0], {0}, false); };
  EXPECT_TRUE(gradcheck(g0, {leaf(values(7, seed++), {7})})) << "1-D";
  EXPECT_TRUE(gradcheck([&](const std::vector<Tensor>& in) { return f(in[0], {}, false); },
                        {leaf(values(1, seed++), {})}))
      << "0-d";
  EXPECT_TRUE(gradcheck(g0, {leaf(values(5 * 20, seed++), {5, 20})})) << "columns of [5,20]";
  EXPECT_TRUE(gradcheck([&](const std::vector<Tensor>& in) { return f(in[0], {1}, false); },
                        {leaf(values(5 * 20, seed++), {5, 20})}))
      << "rows of [5,20]";
}

Values normal_values(int64_t n, uint64_t seed) {
  return uniform(n, seed, -2.0, 2.0);
}
// Distinct values (>= 0.1 apart) so no slice has a tie near its max or min.
Values distinct_values(int64_t n, uint64_t seed) {
  return distinct(n, seed);
}

TEST(GradReduction, Sum) {
  check_reduction([](const Tensor& x, const Axes& a, bool k) { return sum(x, a, k); },
                  normal_values);
}
TEST(GradReduction, Mean) {
  check_reduction([](const Tensor& x, const Axes& a, bool k) { return mean(x, a, k); },
                  normal_values);
}
TEST(GradReduction, Max) {
  check_reduction([](const Tensor& x, const Axes& a, bool k) { return max(x, a, k); },
                  distinct_values);
}
TEST(GradReduction, Min) {
  check_reduction([](const Tensor& x, const Axes& a, bool k) { return min(x, a, k); },
                  distinct_values);
}
TEST(GradReduction, Logsumexp) {
  check_reduction([](const Tensor& x, const Axes& a, bool k) { return logsumexp(x, a, k); },
                  normal_values);
}
TEST(GradReduction, LogsumexpLargeValues) {
  // Values near 800 would overflow a naive exp; the gradient is softmax.
  const Tensor x = leaf({800.0, 801.0, 799.5, 1.0, 2.0, 3.0}, {2, 3});
  EXPECT_TRUE(gradcheck([](const std::vector<Tensor>& in) { return logsumexp(in[0], {1}); }, {x}));
}

TEST(GradReduction, MaxTiesShareGradient) {
  // The gradient is shared equally by tied maxima.
  const Tensor x = leaf({1.0, 3.0, 3.0, 2.0, 5.0, 4.0}, {2, 3});
  sum(max(x, {1})).backward();
  EXPECT_TRUE(all_close(x.grad(), {0.0, 0.5, 0.5, 0.0, 1.0, 0.0}, tolerance_for(DType::f64)));
  const Tensor y = leaf({-1.0, -3.0, -1.0, -1.0}, {4});
  min(y).backward();
  EXPECT_TRUE(all_close(y.grad(), {0.0, 1.0, 0.0, 0.0}, tolerance_for(DType::f64)));
}

TEST(GradReduction, KnownValues) {
  const Tensor x = leaf({1.0, 2.0, 3.0, 4.0, 5.0, 6.0}, {2, 3});
  sum(mean(x, {0}) * 6.0).backward();  // d/dx = 6 / 2
  EXPECT_TRUE(all_close(x.grad(), {3.0, 3.0, 3.0, 3.0, 3.0, 3.0}, tolerance_for(DType::f64)));
}

TEST(GradReduction, Composite) {
  // A softmax-cross-entropy-like composition over the last axis of a strided input.
  const Tensor x = leaf(uniform(12, 99, -2.0, 2.0), {3, 4}, /*strided=*/true);
  EXPECT_TRUE(gradcheck(
      [](const std::vector<Tensor>& in) {
        const Tensor& v = in[0];
        return sum(v - logsumexp(v, {-1}, true), {0}) + mean(v * v, {-1}, false).reshape({3, 1});
      },
      {x}));
}

}  // namespace
