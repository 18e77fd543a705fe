// Finite-difference gradient checks (f64) of the unary elementwise ops and of where.
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

using UnaryFn = std::function<Tensor(const Tensor&)>;
using ValuesFn = std::function<Values(int64_t n, uint64_t seed)>;

Values normal_values(int64_t n, uint64_t seed) {
  return uniform(n, seed, -2.0, 2.0);
}
Values positive_values(int64_t n, uint64_t seed) {
  return uniform(n, seed, 0.3, 3.0);
}
// Distinct grid values 0.1k + 0.03: at least 0.03 from 0 and from +-0.5 (relu, abs, clamp kinks).
Values kinkless_values(int64_t n, uint64_t seed) {
  return distinct(n, seed, 0.03);
}

// f on (a) contiguous input, a 0-d input, (c) a strided leaf, and views taken inside f.
// Unary ops do not broadcast; (b) is covered by a broadcast operand mixed in via expand.
void check_layouts(const UnaryFn& f, const ValuesFn& values) {
  auto one = [&](const Tensor& x, const UnaryFn& g) {
    return gradcheck([&](const std::vector<Tensor>& in) { return g(in[0]); }, {x});
  };
  EXPECT_TRUE(one(leaf(values(12, 1), {3, 4}), f)) << "contiguous [3,4]";
  EXPECT_TRUE(one(leaf(values(5, 2), {5}), f)) << "contiguous [5]";
  EXPECT_TRUE(one(leaf(values(1, 3), {}), f)) << "0-d";
  EXPECT_TRUE(one(leaf(values(24, 4), {2, 3, 4}, /*strided=*/true), f)) << "strided [2,3,4]";
  EXPECT_TRUE(one(leaf(values(24, 5), {4, 6}), [&](const Tensor& x) { return f(x.t()); }))
      << "transposed view";
  EXPECT_TRUE(one(leaf(values(24, 6), {4, 6}), [&](const Tensor& x) {
    return f(x.slice(1, 1, 6, 2));
  })) << "slice with step";
  EXPECT_TRUE(one(leaf(values(4, 7), {4}), [&](const Tensor& x) {
    return f(x.expand({3, 4}));
  })) << "broadcast (expanded) input";
}

TEST(GradUnary, Neg) {
  check_layouts([](const Tensor& x) { return neg(x); }, normal_values);
}
TEST(GradUnary, Abs) {
  check_layouts([](const Tensor& x) { return abs(x); }, kinkless_values);
}
TEST(GradUnary, Exp) {
  check_layouts([](const Tensor& x) { return exp(x); }, normal_values);
}
TEST(GradUnary, LogPositive) {
  check_layouts([](const Tensor& x) { return log(x); }, positive_values);
}
TEST(GradUnary, SqrtPositive) {
  check_layouts([](const Tensor& x) { return sqrt(x); }, positive_values);
}
TEST(GradUnary, Tanh) {
  check_layouts([](const Tensor& x) { return tanh(x); }, normal_values);
}
TEST(GradUnary, Sigmoid) {
  check_layouts([](const Tensor& x) { return sigmoid(x); }, normal_values);
}
TEST(GradUnary, Relu) {
  check_layouts([](const Tensor& x) { return relu(x); }, kinkless_values);
}
TEST(GradUnary, Clamp) {
  // Grid values span beyond [-0.5, 0.5], so elements inside and outside are both checked.
  check_layouts([](const Tensor& x) { return clamp(x, -0.5, 0.5); }, kinkless_values);
}
TEST(GradUnary, PowScalar) {
  check_layouts([](const Tensor& x) { return pow(x, 2.0); }, normal_values);
  check_layouts([](const Tensor& x) { return pow(x, 3.0); }, normal_values);
  check_layouts([](const Tensor& x) { return pow(x, 0.5); }, positive_values);
  check_layouts([](const Tensor& x) { return pow(x, -1.5); }, positive_values);
  check_layouts([](const Tensor& x) { return pow(x, 0.0); }, normal_values);
}

TEST(GradUnary, Chain) {
  check_layouts([](const Tensor& x) { return tanh(exp(sigmoid(x)) * relu(x)); }, kinkless_values);
}

TEST(GradUnary, KnownValues) {
  // Rules written out, so a wrong forward and matching wrong gradient cannot both pass.
  const Tensor x = leaf({-1.5, -0.2, 0.3, 2.0}, {4});
  sum(relu(x) + abs(x) + clamp(x, -1.0, 1.0)).backward();
  // relu': 0 0 1 1; abs': -1 -1 1 1; clamp': 0 1 1 0
  EXPECT_TRUE(all_close(x.grad(), {-1.0, 0.0, 3.0, 2.0}, tolerance_for(DType::f64)));
}

TEST(GradUnary, DocumentedValuesAtKinks) {
  // relu: gradient 0 at 0; clamp: gradient 1 on the closed interval [lo, hi].
  const Tensor x = leaf({0.0, -1.0, 1.0, 2.0}, {4});
  sum(relu(x)).backward();
  EXPECT_TRUE(all_close(x.grad(), {0.0, 0.0, 1.0, 1.0}, tolerance_for(DType::f64)));
  const Tensor y = leaf({-1.0, 1.0, 1.5, -1.5}, {4});
  sum(clamp(y, -1.0, 1.0)).backward();
  EXPECT_TRUE(all_close(y.grad(), {1.0, 1.0, 0.0, 0.0}, tolerance_for(DType::f64)));
}

TEST(GradUnary, SignHasZeroGradient) {
  const Tensor x = leaf({-1.5, -0.2, 0.3, 2.0}, {4});
  sum(sign(x) * 3.0 + x).backward();
  EXPECT_TRUE(all_close(x.grad(), {1.0, 1.0, 1.0, 1.0}, tolerance_for(DType::f64)));
}

// ---- where --------------------------------------------------------------------------------------

Tensor bools(const std::vector<double>& v, const Shape& shape) {
  return optest::make(v, shape, DType::boolean);
}

TEST(GradWhere, BothBranchesContiguous) {
  const Tensor c = bools({1, 0, 0, 1, 1, 0, 1, 0, 0, 0, 1, 1}, {3, 4});
  const Tensor a = leaf(uniform(12, 1), {3, 4}), b = leaf(uniform(12, 2), {3, 4});
  EXPECT_TRUE(
      gradcheck([&](const std::vector<Tensor>& in) { return where(c, in[0], in[1]); }, {a, b}));
}

TEST(GradWhere, Broadcasting) {
  // cond [3,1], a [4], b [2,3,4]: both gradients are summed back to their shapes.
  const Tensor c = bools({1, 0, 1}, {3, 1});
  const Tensor a = leaf(uniform(4, 3), {4}), b = leaf(uniform(24, 4), {2, 3, 4});
  EXPECT_TRUE(
      gradcheck([&](const std::vector<Tensor>& in) { return where(c, in[0], in[1]); }, {a, b}));
  // cond [2,3,4], a 0-d, b [3,1]
  const Tensor c2 = optest::make(optest::integers(24, 5, 0, 1), {2, 3, 4}, DType::boolean);
  const Tensor a2 = leaf({0.7}, {}), b2 = leaf(uniform(3, 6), {3, 1});
  EXPECT_TRUE(
      gradcheck([&](const std::vector<Tensor>& in) { return where(c2, in[0], in[1]); }, {a2, b2}));
}

TEST(GradWhere, NonContiguous) {
  const Tensor c = bools({1, 0, 0, 1, 1, 0, 1, 0, 0, 0, 1, 1}, {4, 3}).t();  // strided condition
  const Tensor a = leaf(uniform(12, 7), {3, 4}, /*strided=*/true);
  const Tensor b = leaf(uniform(24, 8), {3, 8});
  EXPECT_TRUE(gradcheck(
      [&](const std::vector<Tensor>& in) { return where(c, in[0], in[1].slice(1, 0, 8, 2)); },
      {a, b}));
}

TEST(GradWhere, GradientGoesToChosenBranch) {
  const Tensor c = bools({1, 0, 1}, {3});
  const Tensor a = leaf({1.0, 2.0, 3.0}, {3}), b = leaf({4.0, 5.0, 6.0}, {3});
  sum(where(c, a, b)).backward();
  EXPECT_TRUE(all_close(a.grad(), {1.0, 0.0, 1.0}, tolerance_for(DType::f64)));
  EXPECT_TRUE(all_close(b.grad(), {0.0, 1.0, 0.0}, tolerance_for(DType::f64)));
}

}  // namespace

namespace {

// The harness itself must be able to fail: a Function whose backward drops the factor 2 of x².
struct WrongSquare : autograd::Function {
  std::vector<Tensor> forward(autograd::FunctionContext& ctx,
                              const std::vector<Tensor>& in) override {
    ctx.save_for_backward({in[0]});
    return {in[0] * in[0]};
  }
  std::vector<Tensor> backward(autograd::FunctionContext& ctx,
                               const std::vector<Tensor>& g) override {
    return {g[0] * ctx.saved()[0]};
  }
};

TEST(GradcheckSanity, RejectsAWrongGradient) {
  const Tensor x = leaf({0.5, -1.0, 2.0}, {3});
  EXPECT_FALSE(gradcheck(
      [](const std::vector<Tensor>& in) { return autograd::apply<WrongSquare>({in[0]})[0]; }, {x}));
}

}  // namespace
