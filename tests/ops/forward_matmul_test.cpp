// Forward checks of matmul per dtype: ranks, transposed views, batch broadcast, k = 0, large sizes.
#include <gtest/gtest.h>

#include "op_test_util.h"

using namespace exadnn;
using exadnn::optest::make;
using exadnn::optest::matches;
using exadnn::optest::ref_matmul;
using exadnn::optest::Values;

namespace {

class ForwardMatmul : public ::testing::TestWithParam<DType> {};

// Multiples of 1/2 in [-2, 2] for floating types (every product and sum is exact in f32, so f32
// GEMM must match the f64 reference to rounding of the final value only); integers in [-4, 4].
Values operand(DType t, int64_t n, uint64_t seed) {
  Values v = optest::integers(n, seed, -4, 4);
  if (is_floating(t))
    for (double& x : v) x *= 0.5;
  return v;
}

::testing::AssertionResult check(const Tensor& a, const Tensor& b) {
  const auto ref =
      ref_matmul(exadnn::testing::values(a), a.shape(), exadnn::testing::values(b), b.shape());
  return matches(matmul(a, b), a.dtype(), ref);
}

struct Case {
  Shape a, b;
};

TEST_P(ForwardMatmul, Ranks) {
  const DType t = GetParam();
  uint64_t seed = 1;
  for (const Case& c : std::vector<Case>{{{3, 4}, {4, 5}},
                                         {{4}, {4, 3}},
                                         {{3, 4}, {4}},
                                         {{2, 3, 4}, {2, 4, 5}},
                                         {{2, 1, 3, 4}, {5, 4, 2}},
                                         {{3, 2, 4}, {4, 5}},
                                         {{2, 4}, {3, 4, 5}},
                                         {{4}, {3, 4, 2}},
                                         {{3, 2, 4}, {4}},
                                         {{1, 4}, {4, 1}},
                                         {{5, 1}, {1, 6}}}) {
    const Tensor a = make(operand(t, c.a.numel(), seed++), c.a, t);
    const Tensor b = make(operand(t, c.b.numel(), seed++), c.b, t);
    EXPECT_TRUE(check(a, b)) << c.a << " · " << c.b << ", " << dtype_name(t);
  }
}

// Regression: 1-D·1-D throws "squeeze: axis -2 is out of range" (src/ops/linalg.cpp:142-143
// squeezes axis -2 of the already 1-D result); NumPy gives the 0-d dot product.
TEST_P(ForwardMatmul, VectorDotVector) {
  const DType t = GetParam();
  const Tensor a = make(operand(t, 6, 11), {6}, t), b = make(operand(t, 6, 12), {6}, t);
  EXPECT_TRUE(check(a, b)) << dtype_name(t);
}

TEST_P(ForwardMatmul, TransposedViews) {
  // a.t() and b.t() are handed to GEMM as transposed operands.
  const DType t = GetParam();
  const Tensor a = make(operand(t, 12, 20), {4, 3}, t);  // a.t(): [3, 4]
  const Tensor b = make(operand(t, 20, 21), {5, 4}, t);  // b.t(): [4, 5]
  const Tensor a2 = make(operand(t, 12, 22), {3, 4}, t);
  const Tensor b2 = make(operand(t, 20, 23), {4, 5}, t);
  EXPECT_TRUE(check(a.t(), b2)) << "a.t() · b, " << dtype_name(t);
  EXPECT_TRUE(check(a2, b.t())) << "a · b.t(), " << dtype_name(t);
  EXPECT_TRUE(check(a.t(), b.t())) << "a.t() · b.t(), " << dtype_name(t);
  // batched transposes, and a transposed operand broadcast over the batch
  const Tensor c = make(operand(t, 24, 24), {2, 4, 3}, t),
               d = make(operand(t, 40, 25), {2, 5, 4}, t);
  EXPECT_TRUE(check(c.transpose(1, 2), d.transpose(1, 2)))
      << "batched transposes, " << dtype_name(t);
  EXPECT_TRUE(check(c.transpose(1, 2), b.t())) << "batched · shared transposed, " << dtype_name(t);
  // the transpose of a column slice (leading dimension larger than the matrix)
  const Tensor e = make(operand(t, 4 * 9, 26), {4, 9}, t);
  EXPECT_TRUE(check(e.narrow(1, 2, 3).t(), b2)) << "transposed column slice, " << dtype_name(t);
  EXPECT_TRUE(check(a2, e.narrow(1, 2, 4).t())) << "· transposed column slice, " << dtype_name(t);
}

TEST_P(ForwardMatmul, StridedAndSlicedOperands) {
  const DType t = GetParam();
  const Tensor a = make(operand(t, 3 * 7, 30), {3, 7}, t);
  const Tensor b = make(operand(t, 8 * 5, 31), {8, 5}, t);
  EXPECT_TRUE(check(a.narrow(1, 1, 4), b.slice(0, 0, 8, 2))) << "column slice · stepped rows";
  EXPECT_TRUE(check(a.slice(1, 0, 7, 2), b.narrow(0, 2, 4).slice(1, 0, 5, 2))) << "stepped columns";
  const Tensor c = make(operand(t, 2 * 3 * 6, 32), {2, 3, 6}, t);
  EXPECT_TRUE(check(c.narrow(2, 1, 4), b.narrow(0, 0, 4))) << "batched column slice (tall GEMM)";
  EXPECT_TRUE(check(c.permute({1, 0, 2}).narrow(2, 0, 4), b.narrow(0, 4, 4))) << "permuted batch";
  const Tensor v = make(operand(t, 12, 33), {12}, t);
  EXPECT_TRUE(check(v.slice(0, 1, 12, 3), b.narrow(0, 0, 4))) << "stepped vector";
  EXPECT_TRUE(check(a.narrow(1, 0, 4), v.slice(0, 0, 12, 3))) << "matrix · stepped vector";
  // expanded (stride-0) matrix operands
  const Tensor row = make(operand(t, 4, 34), {1, 4}, t);
  EXPECT_TRUE(check(row.expand({3, 4}), b.narrow(0, 0, 4))) << "expanded rows";
  const Tensor col = make(operand(t, 4, 35), {4, 1}, t);
  EXPECT_TRUE(check(a.narrow(1, 0, 4), col.expand({4, 6}))) << "expanded columns";
}

TEST_P(ForwardMatmul, ZeroSizeK) {
  const DType t = GetParam();
  const Tensor a = zeros({3, 0}, t), b = zeros({0, 4}, t);
  EXPECT_TRUE(matches(matmul(a, b), t, {{3, 4}, Values(12, 0.0)})) << dtype_name(t);
  const Tensor c = zeros({2, 3, 0}, t), d = zeros({0, 2}, t);
  EXPECT_TRUE(matches(matmul(c, d), t, {{2, 3, 2}, Values(12, 0.0)})) << dtype_name(t);
  // empty m or n: an empty result
  EXPECT_TRUE(
      matches(matmul(zeros({0, 3}, t), make(operand(t, 6, 40), {3, 2}, t)), t, {{0, 2}, {}}));
  EXPECT_TRUE(
      matches(matmul(make(operand(t, 6, 41), {2, 3}, t), zeros({3, 0}, t)), t, {{2, 0}, {}}));
}

TEST_P(ForwardMatmul, LargeMultithreaded) {
  // 70x130 · 130x90, plain and with both operands transposed.
  const DType t = GetParam();
  const Tensor a = make(operand(t, 70 * 130, 50), {70, 130}, t);
  const Tensor b = make(operand(t, 130 * 90, 51), {130, 90}, t);
  EXPECT_TRUE(check(a, b)) << dtype_name(t);
  const Tensor at = make(operand(t, 130 * 70, 52), {130, 70}, t);
  const Tensor bt = make(operand(t, 90 * 130, 53), {90, 130}, t);
  EXPECT_TRUE(check(at.t(), bt.t())) << "transposed, " << dtype_name(t);
  // a Linear layer's forward x·Wᵀ (f32: oneDNN's matmul primitive, onednn_matmul.h)
  EXPECT_TRUE(check(a, bt.t())) << "a · b.t(), " << dtype_name(t);
  const Tensor batch = make(operand(t, 4 * 70 * 130, 54), {4, 70, 130}, t);
  EXPECT_TRUE(check(batch, b)) << "batched · shared, " << dtype_name(t);
  EXPECT_TRUE(check(batch, bt.t())) << "batched · shared transposed, " << dtype_name(t);
}

INSTANTIATE_TEST_SUITE_P(GemmDTypes, ForwardMatmul,
                         ::testing::Values(DType::f32, DType::f64, DType::f16, DType::bf16,
                                           DType::i32, DType::i64),
                         optest::DTypeName());

TEST(ForwardMatmulExtra, UnregisteredDtypesAreListedErrors) {
  for (DType t : {DType::u8, DType::boolean}) {
    const Tensor a = make({1, 0, 1, 1}, {2, 2}, t);
    EXPECT_EXADNN_ERROR(matmul(a, a), optest::no_kernel("gemm"), optest::with_dtype(t));
  }
}

TEST(ForwardMatmulExtra, NonDyadicF64Values) {
  // Arbitrary f64 values against the naive loop (tolerance of f64).
  const Tensor a = make(optest::uniform(6 * 5, 60), {6, 5}, DType::f64);
  const Tensor b = make(optest::uniform(5 * 7, 61), {7, 5}, DType::f64).t();
  EXPECT_TRUE(check(a, b));
}

}  // namespace

namespace {

// Products large enough (> 4 MFLOP) that a BLAS GEMM is split into row or column blocks over the
// OpenMP threads (src/backend/cpu/gemm_kernels.cpp, blas_gemm); every block layout must agree with
// the naive loop, with and without transposed operands.
TEST(ForwardMatmulExtra, BlasCallsSplitOverThreads) {
  const int threads = get_num_threads();
  set_num_threads(2);
  struct Case {
    int64_t m, k, n;
  };
  for (const Case c : {Case{150, 120, 140}, Case{7, 300, 2100}, Case{2100, 300, 7}}) {
    const Tensor a = make(optest::uniform(c.m * c.k, 70), {c.m, c.k}, DType::f64);
    const Tensor b = make(optest::uniform(c.k * c.n, 71), {c.k, c.n}, DType::f64);
    EXPECT_TRUE(check(a, b)) << c.m << "x" << c.k << "x" << c.n;
    const Tensor at = make(optest::uniform(c.k * c.m, 72), {c.k, c.m}, DType::f64);
    const Tensor bt = make(optest::uniform(c.n * c.k, 73), {c.n, c.k}, DType::f64);
    EXPECT_TRUE(check(at.t(), bt.t())) << "transposed " << c.m << "x" << c.k << "x" << c.n;
  }
  set_num_threads(threads);
}

}  // namespace
