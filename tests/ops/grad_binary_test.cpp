// Finite-difference gradient checks (f64) of the binary elementwise ops and scalar operators.
#include <gtest/gtest.h>

#include "op_test_util.h"

using namespace exadnn;
using exadnn::optest::distinct;
using exadnn::optest::leaf;
using exadnn::optest::uniform;
using exadnn::optest::Values;
using exadnn::testing::all_close;
using exadnn::testing::gradcheck;
using exadnn::testing::random_leaf;
using exadnn::testing::strided_leaf;
using exadnn::testing::tolerance_for;

namespace {

using Fn = std::function<Tensor(const Tensor&, const Tensor&)>;

// Checks f(a, b) for contiguous operands, three broadcasting pairs and strided operands.
// `make(values_seed, shape, strided)` builds each operand (so ops with domain limits can choose
// their values).
using Maker = std::function<Tensor(uint64_t, const Shape&, bool)>;

Tensor normal(uint64_t seed, const Shape& shape, bool strided) {
  return strided ? strided_leaf(shape, seed) : random_leaf(shape, seed);
}

void check_all_layouts(const Fn& f, const Maker& make_a, const Maker& make_b) {
  auto run = [&](const Tensor& a, const Tensor& b) {
    return gradcheck([&](const std::vector<Tensor>& in) { return f(in[0], in[1]); }, {a, b});
  };
  // (a) contiguous, same shape
  EXPECT_TRUE(run(make_a(1, {3, 4}, false), make_b(2, {3, 4}, false))) << "contiguous";
  // (b) broadcasting: [3,1] with [4], [2,3,4] with [4], [4] with [2,3,4], 0-d with [3,2]
  EXPECT_TRUE(run(make_a(3, {3, 1}, false), make_b(4, {4}, false))) << "[3,1] with [4]";
  EXPECT_TRUE(run(make_a(5, {2, 3, 4}, false), make_b(6, {4}, false))) << "[2,3,4] with [4]";
  EXPECT_TRUE(run(make_a(7, {4}, false), make_b(8, {2, 3, 4}, false))) << "[4] with [2,3,4]";
  EXPECT_TRUE(run(make_a(9, {}, false), make_b(10, {3, 2}, false))) << "0-d with [3,2]";
  EXPECT_TRUE(run(make_a(11, {2, 1, 4}, false), make_b(12, {3, 1}, false))) << "[2,1,4] with [3,1]";
  // (c) non-contiguous: strided leaves, a strided leaf with a broadcast operand, and views taken
  // inside the function
  EXPECT_TRUE(run(make_a(13, {3, 4}, true), make_b(14, {3, 4}, true))) << "strided";
  EXPECT_TRUE(run(make_a(15, {2, 3, 4}, true), make_b(16, {3, 1}, false))) << "strided + bcast";
  const Tensor a = make_a(17, {4, 3}, false), b = make_b(18, {3, 8}, false);
  EXPECT_TRUE(gradcheck(
      [&](const std::vector<Tensor>& in) { return f(in[0].t(), in[1].slice(1, 0, 8, 2)); }, {a, b}))
      << "t() and slice with step inside f";
}

// Values away from zero (|v| >= 0.5), for divisors.
Tensor nonzero(uint64_t seed, const Shape& shape, bool strided) {
  Values v = uniform(shape.numel(), seed, 0.5, 2.0);
  for (size_t i = 0; i < v.size(); i += 2) v[i] = -v[i];
  return leaf(v, shape, strided);
}

Tensor positive(uint64_t seed, const Shape& shape, bool strided) {
  return leaf(uniform(shape.numel(), seed, 0.5, 2.0), shape, strided);
}

// Distinct grid values with offset 0.03 for a and 0.08 for b: any a and b differ by >= 0.05,
// so maximum/minimum never meet a tie within the finite-difference step.
Tensor grid_a(uint64_t seed, const Shape& shape, bool strided) {
  return leaf(distinct(shape.numel(), seed, 0.03), shape, strided);
}
Tensor grid_b(uint64_t seed, const Shape& shape, bool strided) {
  return leaf(distinct(shape.numel(), seed, 0.08), shape, strided);
}

TEST(GradBinary, Add) {
  check_all_layouts([](auto& a, auto& b) { return add(a, b); }, normal, normal);
}
TEST(GradBinary, Sub) {
  check_all_layouts([](auto& a, auto& b) { return sub(a, b); }, normal, normal);
}
TEST(GradBinary, Mul) {
  check_all_layouts([](auto& a, auto& b) { return mul(a, b); }, normal, normal);
}
TEST(GradBinary, Div) {
  check_all_layouts([](auto& a, auto& b) { return div(a, b); }, normal, nonzero);
}
TEST(GradBinary, PowPositiveBase) {
  check_all_layouts([](auto& a, auto& b) { return pow(a, b); }, positive, normal);
}
TEST(GradBinary, Maximum) {
  check_all_layouts([](auto& a, auto& b) { return maximum(a, b); }, grid_a, grid_b);
}
TEST(GradBinary, Minimum) {
  check_all_layouts([](auto& a, auto& b) { return minimum(a, b); }, grid_a, grid_b);
}

TEST(GradBinary, AddRelu) {  // grid values: no sum within 0.01 of relu's kink
  check_all_layouts([](auto& a, auto& b) { return add_relu(a, b); }, grid_a, grid_b);
}

TEST(GradBinary, OperatorsOnTensors) {
  check_all_layouts([](auto& a, auto& b) { return a * b + a / b - (-a); }, normal, nonzero);
}

TEST(GradBinary, SameTensorOnBothSides) {
  // x * x and x - x route two gradients into one leaf.
  const Tensor x = random_leaf({3, 4}, 21);
  EXPECT_TRUE(gradcheck([](const std::vector<Tensor>& in) { return mul(in[0], in[0]); }, {x}));
  EXPECT_TRUE(
      gradcheck([](const std::vector<Tensor>& in) { return add(in[0], in[0].t().t()); }, {x}));
  const Tensor y = random_leaf({3, 4}, 22);
  Tensor z = mul(y, y);
  sum(z).backward();
  ASSERT_TRUE(y.grad().defined());
  std::vector<double> expected = exadnn::testing::values(y);
  for (double& v : expected) v *= 2.0;
  EXPECT_TRUE(all_close(y.grad(), expected, tolerance_for(DType::f64)));
}

TEST(GradBinary, MaximumMinimumTiesGoToFirstOperand) {
  const Tensor a = leaf({1.0, 2.0, 3.0}, {3}), b = leaf({1.0, 5.0, 0.0}, {3});
  sum(maximum(a, b)).backward();
  EXPECT_TRUE(all_close(a.grad(), {1.0, 0.0, 1.0}, tolerance_for(DType::f64)));
  EXPECT_TRUE(all_close(b.grad(), {0.0, 1.0, 0.0}, tolerance_for(DType::f64)));
  const Tensor c = leaf({1.0, 2.0, 3.0}, {3}), d = leaf({1.0, 5.0, 0.0}, {3});
  sum(minimum(c, d)).backward();
  EXPECT_TRUE(all_close(c.grad(), {1.0, 1.0, 0.0}, tolerance_for(DType::f64)));
  EXPECT_TRUE(all_close(d.grad(), {0.0, 0.0, 1.0}, tolerance_for(DType::f64)));
}

TEST(GradBinary, OnlyOneOperandRequiresGrad) {
  const Tensor a = random_leaf({3, 4}, 23);
  const Tensor b = optest::make(uniform(4, 24, 0.5, 2.0), {4}, DType::f64);  // constant
  EXPECT_TRUE(gradcheck([&](const std::vector<Tensor>& in) { return div(in[0], b); }, {a}));
  EXPECT_TRUE(gradcheck([&](const std::vector<Tensor>& in) { return pow(b, in[0]); }, {a}));
}

// ---- scalar operators --------------------------------------------------------------------------

void check_unary_layouts(const std::function<Tensor(const Tensor&)>& f, const Maker& make) {
  auto one = [&](const Tensor& x) {
    return gradcheck([&](const std::vector<Tensor>& in) { return f(in[0]); }, {x});
  };
  EXPECT_TRUE(one(make(31, {3, 4}, false))) << "contiguous";
  EXPECT_TRUE(one(make(32, {}, false))) << "0-d";
  EXPECT_TRUE(one(make(33, {2, 3, 4}, true))) << "strided";
  const Tensor x = make(34, {4, 6}, false);
  EXPECT_TRUE(
      gradcheck([&](const std::vector<Tensor>& in) { return f(in[0].t().slice(0, 1, 6, 2)); }, {x}))
      << "view inside f";
}

TEST(GradScalarOps, TimesScalar) {
  check_unary_layouts([](const Tensor& x) { return x * 2.0; }, normal);
  check_unary_layouts([](const Tensor& x) { return -3.0 * x; }, normal);
}
TEST(GradScalarOps, ScalarMinus) {
  check_unary_layouts([](const Tensor& x) { return 1.0 - x; }, normal);
  check_unary_layouts([](const Tensor& x) { return x - 0.5; }, normal);
}
TEST(GradScalarOps, ScalarPlus) {
  check_unary_layouts([](const Tensor& x) { return x + 2.5; }, normal);
  check_unary_layouts([](const Tensor& x) { return 2.5 + x; }, normal);
}
TEST(GradScalarOps, ScalarDividedBy) {
  check_unary_layouts([](const Tensor& x) { return 2.0 / x; }, nonzero);
  check_unary_layouts([](const Tensor& x) { return x / 4.0; }, normal);
}

TEST(GradScalarOps, GradientValues) {
  // d(2/x)/dx = -2/x^2, written out so a wrong rule cannot hide behind a matching finite
  // difference of the same wrong forward.
  const Tensor x = leaf({0.5, -1.0, 2.0, 4.0}, {4});
  sum(2.0 / x).backward();
  EXPECT_TRUE(all_close(x.grad(), {-8.0, -2.0, -0.5, -0.125}, tolerance_for(DType::f64)));
  const Tensor y = leaf({0.5, -1.0, 2.0}, {3});
  sum((1.0 - y) * 3.0).backward();
  EXPECT_TRUE(all_close(y.grad(), {-3.0, -3.0, -3.0}, tolerance_for(DType::f64)));
}

TEST(GradBinary, BroadcastGradientShapes) {
  // The gradient of a broadcast operand is summed back to the operand's own shape.
  const Tensor a = random_leaf({3, 1}, 41);
  const Tensor b = random_leaf({4}, 42);
  sum(mul(a, b)).backward();
  ASSERT_TRUE(a.grad().defined() && b.grad().defined());
  EXPECT_EQ(a.grad().shape(), (Shape{3, 1}));
  EXPECT_EQ(b.grad().shape(), (Shape{4}));
  const auto av = exadnn::testing::values(a), bv = exadnn::testing::values(b);
  const double bsum = bv[0] + bv[1] + bv[2] + bv[3], asum = av[0] + av[1] + av[2];
  EXPECT_TRUE(all_close(a.grad(), {bsum, bsum, bsum}, tolerance_for(DType::f64)));
  EXPECT_TRUE(all_close(b.grad(), {asum, asum, asum, asum}, tolerance_for(DType::f64)));
}

}  // namespace
