// Tests the matmul precision policy: per-scope and per-call selection, every precision on every
// operand layout, gradients, the accuracy each precision promises (relative Frobenius error
// against an f64 product, as in docs/precision.md), and f32 accumulation of 16-bit GEMMs.
#include <gtest/gtest.h>

#include <thread>

#include "../ops/op_test_util.h"
#include "exadnn/backend/precision_policy.h"
#include "exadnn/precision/accuracy.h"

using namespace exadnn;
using exadnn::optest::make;
using exadnn::optest::matches;
using exadnn::optest::ref_matmul;
using exadnn::optest::Values;
using exadnn::testing::all_close;

namespace {

constexpr MatmulPrecision kAll[] = {MatmulPrecision::fp32, MatmulPrecision::bf16,
                                    MatmulPrecision::fp16, MatmulPrecision::split_fp16,
                                    MatmulPrecision::split_bf16};

// Multiples of 1/2 in [-2, 2]: exact in bf16 and fp16, and every product and partial sum is exact
// in f32, so every precision must give the f64 product up to f32 rounding of the result.
Tensor exact_operand(const Shape& shape, uint64_t seed) {
  Values v = optest::integers(shape.numel(), seed, -4, 4);
  for (double& x : v) x *= 0.5;
  return make(v, shape, DType::f32);
}

::testing::AssertionResult check(const Tensor& a, const Tensor& b, MatmulPrecision p) {
  const auto ref =
      ref_matmul(exadnn::testing::values(a), a.shape(), exadnn::testing::values(b), b.shape());
  return matches(matmul(a, b, p), DType::f32, ref);
}

}  // namespace

TEST(MatmulPrecision, NamesRoundTripAndUnknownNamesAreErrors) {
  for (MatmulPrecision p : kAll) EXPECT_EQ(parse_matmul_precision(matmul_precision_name(p)), p);
  EXPECT_EXADNN_ERROR(parse_matmul_precision("tf32"), "matmul_precision",
                      "unknown precision 'tf32'", "split_fp16");
}

TEST(MatmulPrecision, ScopesNestAndRestoreAndStayOnTheirThread) {
  EXPECT_EQ(matmul_precision(), MatmulPrecision::fp32);
  {
    MatmulPrecisionGuard outer(MatmulPrecision::split_bf16);
    EXPECT_EQ(matmul_precision(), MatmulPrecision::split_bf16);
    {
      MatmulPrecisionGuard inner(MatmulPrecision::fp16);
      EXPECT_EQ(matmul_precision(), MatmulPrecision::fp16);
    }
    EXPECT_EQ(matmul_precision(), MatmulPrecision::split_bf16);
    MatmulPrecision other = MatmulPrecision::bf16;
    std::thread([&] { other = matmul_precision(); }).join();
    EXPECT_EQ(other, MatmulPrecision::fp32) << "another thread keeps its own precision";
  }
  EXPECT_EQ(matmul_precision(), MatmulPrecision::fp32);
}

TEST(MatmulPrecision, ScopeAndPerCallArgumentSelectThePrecision) {
  Generator gen(5);
  const Tensor a = rand({64, 64}, {}, &gen), b = rand({64, 64}, {}, &gen);
  const Tensor fp32 = matmul(a, b, MatmulPrecision::fp32);
  const Tensor bf16 = matmul(a, b, MatmulPrecision::bf16);
  EXPECT_FALSE(all_close(bf16, fp32)) << "bf16 rounding must be visible at f32 tolerance";
  {
    MatmulPrecisionGuard scope(MatmulPrecision::bf16);
    EXPECT_TRUE(all_close(matmul(a, b), bf16)) << "the scope applies to matmul(a, b)";
    EXPECT_TRUE(all_close(matmul(a, b, MatmulPrecision::fp32), fp32)) << "the argument wins";
  }
  EXPECT_TRUE(all_close(matmul(a, b), fp32));
}

TEST(MatmulPrecision, ReducedPrecisionsRoundTheOperandsOnly) {
  // bf16 / fp16: the product of the rounded operands with f32 sums.
  Generator gen(6);
  const Tensor a = randn({40, 70}, {}, &gen), b = randn({70, 30}, {}, &gen);
  for (DType dt : {DType::bf16, DType::f16}) {
    const MatmulPrecision p = dt == DType::bf16 ? MatmulPrecision::bf16 : MatmulPrecision::fp16;
    const Tensor expected = matmul(a.to(dt).to(DType::f32), b.to(dt).to(DType::f32));
    EXPECT_TRUE(all_close(matmul(a, b, p), expected)) << matmul_precision_name(p);
  }
}

TEST(MatmulPrecision, EveryPrecisionOnEveryLayout) {
  for (MatmulPrecision p : kAll) {
    const char* name = matmul_precision_name(p);
    const Tensor a = exact_operand({70, 130}, 1), b = exact_operand({130, 90}, 2);
    EXPECT_TRUE(check(a, b, p)) << name;
    const Tensor at = exact_operand({130, 70}, 3), bt = exact_operand({90, 130}, 4);
    EXPECT_TRUE(check(at.t(), b, p)) << name << ": a transposed";
    EXPECT_TRUE(check(a, bt.t(), p)) << name << ": b transposed";
    EXPECT_TRUE(check(at.t(), bt.t(), p)) << name << ": both transposed";
    const Tensor wide = exact_operand({70, 140}, 5);
    EXPECT_TRUE(check(wide.narrow(1, 3, 130), b, p)) << name << ": column slice (lda > k)";
    EXPECT_TRUE(check(wide.narrow(1, 3, 130),
                      exact_operand({140, 90}, 6).narrow(0, 5, 130).t().contiguous().t(), p))
        << name << ": slice · transposed";
    const Tensor batch = exact_operand({3, 20, 130}, 7);
    EXPECT_TRUE(check(batch, b, p)) << name << ": batched · shared (one tall GEMM)";
    EXPECT_TRUE(check(batch, exact_operand({3, 130, 9}, 8), p)) << name << ": batched";
    EXPECT_TRUE(check(exact_operand({130}, 9), b, p)) << name << ": vector · matrix";
    EXPECT_TRUE(check(exact_operand({1, 1}, 10), exact_operand({1, 5}, 11), p))
        << name << ": k = 1";
    EXPECT_TRUE(
        matches(matmul(zeros({3, 0}), zeros({0, 4}), p), DType::f32, {{3, 4}, Values(12, 0.0)}))
        << name << ": k = 0";
  }
}

// Random values cancel, so the elementwise bound is the classic GEMM one, scaled by |A|·|B|:
// |C - C_ref| <= rtol(f32) * (|A|·|B|) + atol(f32), which plain fp32 GEMM meets too.
::testing::AssertionResult within_gemm_bound(const Tensor& a, const Tensor& b, MatmulPrecision p) {
  const Values av = exadnn::testing::values(a), bv = exadnn::testing::values(b);
  Values aa = av, ba = bv;
  for (double& x : aa) x = std::fabs(x);
  for (double& x : ba) x = std::fabs(x);
  const auto ref = ref_matmul(av, a.shape(), bv, b.shape());
  const auto bound = ref_matmul(aa, a.shape(), ba, b.shape());
  const Values got = exadnn::testing::values(matmul(a, b, p));
  const auto tol = exadnn::testing::tolerance_for(DType::f32);
  for (size_t i = 0; i < got.size(); ++i)
    if (std::fabs(got[i] - ref.values[i]) > tol.rtol * bound.values[i] + tol.atol)
      return ::testing::AssertionFailure()
             << "element " << i << ": " << got[i] << " vs " << ref.values[i]
             << " (|A|·|B| = " << bound.values[i] << ")";
  return ::testing::AssertionSuccess();
}

TEST(MatmulPrecision, SplitPrecisionsMeetTheF32BoundOnRandomValues) {
  Generator gen(7);
  const Tensor a = randn({50, 300}, {}, &gen), b = randn({300, 40}, {}, &gen);
  for (MatmulPrecision p :
       {MatmulPrecision::fp32, MatmulPrecision::split_fp16, MatmulPrecision::split_bf16}) {
    EXPECT_TRUE(within_gemm_bound(a, b, p)) << matmul_precision_name(p);
    EXPECT_TRUE(within_gemm_bound(b.t(), a.t(), p)) << matmul_precision_name(p) << ", transposed";
  }
}

TEST(MatmulPrecision, GradientsUseThePrecisionOfTheForwardCall) {
  // f32 leaves at split precision give the f64 gradients to f32 tolerance; f64 leaves (which
  // ignore the precision) pass the finite-difference check of the per-call overload.
  Generator gen(8);
  for (MatmulPrecision p : {MatmulPrecision::split_fp16, MatmulPrecision::split_bf16}) {
    Tensor a = randn({6, 50}, {}, &gen).requires_grad_(true);
    Tensor b = randn({50, 7}, {}, &gen).requires_grad_(true);
    const Tensor g = randn({6, 7}, {}, &gen);
    autograd::backward({matmul(a, b, p)}, {g});
    const Tensor a64 = a.detach().to(DType::f64), b64 = b.detach().to(DType::f64);
    const Tensor g64 = g.to(DType::f64);
    EXPECT_TRUE(all_close(a.grad(), matmul(g64, b64.t()).to(DType::f32)))
        << matmul_precision_name(p);
    EXPECT_TRUE(all_close(b.grad(), matmul(a64.t(), g64).to(DType::f32)))
        << matmul_precision_name(p);
  }
  for (MatmulPrecision p : kAll)
    EXPECT_TRUE(exadnn::testing::gradcheck(
        [p](const std::vector<Tensor>& x) { return matmul(x[0], x[1], p); },
        {exadnn::testing::random_leaf({3, 4}, 1), exadnn::testing::strided_leaf({4, 5}, 2)}))
        << matmul_precision_name(p);
}

// The accuracy docs/precision.md promises, measured as the table is (uniform [-1, 1] inputs,
// relative Frobenius error against the f64 product of the f32 inputs).
TEST(MatmulPrecision, AccuracyOfEachPrecision) {
  for (int64_t n : {64, 256, 1024}) {
    const double fp32 = precision::matmul_relative_error(n, MatmulPrecision::fp32);
    const double fp16 = precision::matmul_relative_error(n, MatmulPrecision::fp16);
    const double bf16 = precision::matmul_relative_error(n, MatmulPrecision::bf16);
    const double split_fp16 = precision::matmul_relative_error(n, MatmulPrecision::split_fp16);
    const double split_bf16 = precision::matmul_relative_error(n, MatmulPrecision::split_bf16);
    std::cout << "[          ] n=" << n << " fp32 " << fp32 << " fp16 " << fp16 << " bf16 " << bf16
              << " split_fp16 " << split_fp16 << " split_bf16 " << split_bf16 << "\n";
    EXPECT_GT(fp16, 1e-4) << n;
    EXPECT_LT(fp16, 5e-4) << n;
    EXPECT_GT(bf16, 1e-3) << n;  // "near 2e-3"
    EXPECT_LT(bf16, 4e-3) << n;
    EXPECT_LE(split_fp16, 1.5 * fp32) << n;
    EXPECT_LE(split_bf16, 1.5 * fp32) << n;
  }
}

TEST(HalfGemm, SixteenBitOperandsAccumulateInF32) {
  // 4096 products of 1: a 16-bit accumulator stalls (bf16 at 256, fp16 at 2048); f32 sums give
  // 4096, which both formats hold exactly.
  for (DType dt : {DType::bf16, DType::f16}) {
    const Tensor a = ones({2, 4096}, dt), b = ones({4096, 3}, dt);
    const Tensor c = matmul(a, b);
    EXPECT_EQ(c.dtype(), dt);
    EXPECT_TRUE(matches(c, dt, {{2, 3}, Values(6, 4096.0)})) << dtype_name(dt);
    EXPECT_TRUE(matches(matmul(b.t(), a.t()), dt, {{3, 2}, Values(6, 4096.0)})) << dtype_name(dt);
  }
}
