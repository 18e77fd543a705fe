// Pooling: forward and gradients (f32, bf16, f16) against naive loops on both CPU algorithms, the
// algorithms against each other, f64 finite-difference gradient checks, and errors.
#include <gtest/gtest.h>

#include "layer_ref.h"

using namespace exadnn;
using exadnn::layerref::Pool;
using exadnn::layerref::PoolProblem;
using exadnn::optest::make;
using exadnn::optest::matches;
using exadnn::optest::Ref;
using exadnn::testing::all_close;
using exadnn::testing::gradcheck;
using exadnn::testing::random_leaf;
using exadnn::testing::strided_leaf;

namespace {

Tensor run(const PoolProblem& p, const Tensor& x) {
  switch (p.kind) {
    case Pool::max:
      return max_pool2d(x, p.kernel, p.stride, p.padding);
    case Pool::avg_include:
      return avg_pool2d(x, p.kernel, p.stride, p.padding, true);
    case Pool::avg_exclude:
      return avg_pool2d(x, p.kernel, p.stride, p.padding, false);
    default:
      return adaptive_avg_pool2d(x, p.kernel.h, p.kernel.w);
  }
}

const std::vector<PoolProblem>& problems() {
  static const std::vector<PoolProblem> v{
      {{2, 3, 8, 8}, Pool::max, 2, 2, 0},                 // the CNN's 2x2
      {{128, 32, 24, 24}, Pool::max, 2, 2, 0},            // the CNN's first pooling, full size
      {{2, 3, 7, 7}, Pool::max, 3, 2, 1},                 // padded, overlapping
      {{2, 3, 8, 8}, Pool::max, 3, 2, 1},                 // ResNet's stem pooling (even width)
      {{1, 2, 7, 10}, Pool::max, 3, 2, 1},                // the same, odd height
      {{2, 4, 64, 64}, Pool::max, 3, 2, 1},               // the same, at the stem's size
      {{1, 2, 7, 9}, Pool::max, {2, 3}, {1, 2}, {1, 1}},  // rectangular
      {{2, 2, 5, 5}, Pool::max, 2, 2, 0},                 // floor: last row/column unused
      {{2, 3, 6, 70}, Pool::max, 2, 2, 0},                // 2x2 rows of 16 + 16 + 3 outputs
      {{1, 2, 5, 37}, Pool::max, 2, 2, 0},                // 2x2, 16 + 2 outputs, odd sizes
      {{2, 3, 8, 8}, Pool::avg_include, 2, 2, 0},
      {{2, 3, 7, 7}, Pool::avg_include, 3, 2, 1},
      {{2, 3, 7, 7}, Pool::avg_exclude, 3, 2, 1},
      {{1, 2, 6, 9}, Pool::avg_exclude, {3, 2}, {1, 3}, {1, 1}},
      {{2, 3, 8, 8}, Pool::adaptive, 2},       // even tiling (oneDNN runs it)
      {{2, 3, 7, 5}, Pool::adaptive, {3, 2}},  // uneven windows (exadnn's loops)
      {{2, 4, 6, 6}, Pool::adaptive, 1},       // global average
      {{1, 2, 3, 3}, Pool::adaptive, {5, 4}},  // more outputs than inputs
  };
  return v;
}

std::string describe(const PoolProblem& p) {
  static const char* names[] = {"max", "avg_include_pad", "avg_exclude_pad", "adaptive"};
  std::ostringstream os;
  os << names[static_cast<int>(p.kind)] << " x " << p.x << " kernel " << p.kernel << " stride "
     << p.stride << " padding " << p.padding;
  return os.str();
}

// Distinct values (no ties for max pooling), exact in f32.
layerref::Values data(const PoolProblem& p, uint64_t seed = 1) {
  layerref::Values v = optest::distinct(p.x.numel(), seed);
  for (double& x : v) x = std::round(x * 16.0) / 16.0 + 1.0 / 64.0;
  return v;
}

class PoolAlgo : public ::testing::TestWithParam<ConvAlgorithm> {
 protected:
  PoolAlgo() : guard_(GetParam()) {}

 private:
  ConvAlgorithmGuard guard_;
};

TEST_P(PoolAlgo, ForwardMatchesNaiveLoopF32) {
  for (const PoolProblem& p : problems()) {
    SCOPED_TRACE(describe(p));
    const layerref::Values x = data(p);
    EXPECT_TRUE(
        matches(run(p, make(x, p.x, DType::f32)), DType::f32, layerref::pool_forward(p, x)));
  }
}

TEST_P(PoolAlgo, GradientMatchesNaiveLoopF32) {
  for (const PoolProblem& p : problems()) {
    SCOPED_TRACE(describe(p));
    const layerref::Values xv = data(p);
    Tensor x = make(xv, p.x, DType::f32).requires_grad_();
    const Tensor out = run(p, x);
    const layerref::Values g = layerref::quantized(out.numel(), 5);
    out.backward(make(g, out.shape(), DType::f32));
    EXPECT_TRUE(matches(x.grad(), DType::f32, Ref{p.x, layerref::pool_backward(p, xv, g)}));
  }
}

// f16 and bf16 run in exadnn's loops on both paths, comparing and summing in f32. The data are
// scaled into f16's range and rounded to dt first (so ties appear; the reference breaks them like
// the kernels do: the first maximum wins); results then differ only by the final rounding.
TEST_P(PoolAlgo, SixteenBitMatchesNaiveLoop) {
  for (DType dt : {DType::bf16, DType::f16})
    for (const PoolProblem& p : problems()) {
      SCOPED_TRACE(describe(p) + " " + dtype_name(dt));
      layerref::Values xv = data(p);
      for (double& v : xv) v *= 80.0 / static_cast<double>(p.x.numel());  // |x| <= ~4
      xv = exadnn::testing::values(make(xv, p.x, dt));
      Tensor x = make(xv, p.x, dt).requires_grad_();
      const Tensor out = run(p, x);
      EXPECT_EQ(out.dtype(), dt);
      EXPECT_TRUE(matches(out, dt, layerref::pool_forward(p, xv)));
      const layerref::Values g = layerref::quantized(out.numel(), 5);
      out.backward(make(g, out.shape(), dt));
      EXPECT_TRUE(matches(x.grad(), dt, Ref{p.x, layerref::pool_backward(p, xv, g)}));
    }
}

TEST_P(PoolAlgo, InputWithoutBatchAxis) {
  const layerref::Values v = data({{1, 3, 6, 6}});
  Tensor x = make(v, {3, 6, 6}, DType::f32).requires_grad_();
  const Tensor out = max_pool2d(x, 2);
  EXPECT_EQ(out.shape(), (Shape{3, 3, 3}));
  const PoolProblem p{{1, 3, 6, 6}, Pool::max, 2, 2, 0};
  EXPECT_TRUE(all_close(out.reshape({1, 3, 3, 3}),
                        make(layerref::pool_forward(p, v).values, {1, 3, 3, 3}, DType::f32)));
  sum(out).backward();
  EXPECT_EQ(x.grad().shape(), (Shape{3, 6, 6}));
}

TEST_P(PoolAlgo, DefaultStrideIsTheKernel) {
  const Tensor x = make(data({{2, 2, 6, 6}}), {2, 2, 6, 6}, DType::f32);
  EXPECT_TRUE(all_close(max_pool2d(x, 3), max_pool2d(x, 3, 3, 0)));
  EXPECT_TRUE(all_close(avg_pool2d(x, {2, 3}), avg_pool2d(x, {2, 3}, {2, 3}, 0)));
}

TEST_P(PoolAlgo, EmptyBatch) {
  for (const PoolProblem& p : {PoolProblem{{0, 3, 8, 8}, Pool::max, 2, 2, 0},
                               PoolProblem{{0, 3, 8, 8}, Pool::avg_include, 3, 1, 1},
                               PoolProblem{{0, 3, 8, 8}, Pool::adaptive, 2}}) {
    SCOPED_TRACE(describe(p));
    Tensor x = zeros(p.x).requires_grad_();
    const Tensor out = run(p, x);
    EXPECT_EQ(out.shape(), layerref::pool_out_shape(p));
    sum(out).backward();
    EXPECT_EQ(x.grad().shape(), p.x);
  }
}

// max pooling of data xv (f32) with its values and gradient equal to the naive loop's, which
// gives each window's gradient to its first maximum in row-major order.
void expect_naive_max_pool(const PoolProblem& p, const layerref::Values& xv) {
  Tensor x = make(xv, p.x, DType::f32).requires_grad_();
  const Tensor out = run(p, x);
  EXPECT_TRUE(matches(out, DType::f32, layerref::pool_forward(p, xv)));
  const layerref::Values g = layerref::quantized(out.numel(), 6);
  out.backward(make(g, out.shape(), DType::f32));
  EXPECT_TRUE(matches(x.grad(), DType::f32, Ref{p.x, layerref::pool_backward(p, xv, g)}));
}

// 2x2 max pooling (vectorised on both paths): ties go to the first maximum in the window, in
// the forward's workspace and so in the gradient.
TEST_P(PoolAlgo, MaxPool2x2TiesGoToTheFirstMaximum) {
  for (const PoolProblem& p : {PoolProblem{{2, 3, 8, 40}, Pool::max, 2, 2, 0},
                               PoolProblem{{1, 1, 3, 5}, Pool::max, 2, 2, 0}}) {
    SCOPED_TRACE(describe(p));
    layerref::Values xv(static_cast<size_t>(p.x.numel()));
    for (size_t i = 0; i < xv.size(); ++i) xv[i] = static_cast<double>((i * 7 + i / 5) % 3) - 1.0;
    expect_naive_max_pool(p, xv);
  }
}

// A NaN in a 2x2 window wins (the first one, like PyTorch) and takes the gradient.
TEST_P(PoolAlgo, MaxPool2x2NaNWins) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  std::vector<float> v(2 * 36, 1.0f);          // [1, 1, 2, 36] -> [1, 1, 1, 18]
  v[2 * 3 + 1] = nan;                          // window 3: top right
  v[36 + 2 * 3] = nan;                         // and bottom left (a later NaN)
  v[2 * 17] = 5.0f, v[36 + 2 * 17 + 1] = nan;  // window 17, in the second chunk: NaN over 5
  Tensor x = from_vector<float>(v).reshape({1, 1, 2, 36}).requires_grad_();
  const Tensor out = max_pool2d(x, 2);
  const std::vector<float> o = to_vector<float>(out.reshape({18}));
  for (int i = 0; i < 18; ++i) EXPECT_EQ(std::isnan(o[i]), i == 3 || i == 17) << i;
  out.backward(ones_like(out));
  const std::vector<float> gx = to_vector<float>(x.grad().reshape({72}));
  EXPECT_EQ(gx[2 * 3 + 1], 1.0f);
  EXPECT_EQ(gx[36 + 2 * 3], 0.0f);
  EXPECT_EQ(gx[36 + 2 * 17 + 1], 1.0f);
  EXPECT_EQ(gx[2 * 17], 0.0f);
  EXPECT_EQ(gx[0], 1.0f);  // all-equal window: the first input
}

// 3x3 stride-2 max pooling of even widths (ResNet's stem; exadnn's separable loop on both
// paths): ties go to the window's first maximum in row-major order, as the naive loop scans it.
TEST_P(PoolAlgo, MaxPool3x3Stride2TiesGoToTheFirstMaximum) {
  for (const PoolProblem& p : {PoolProblem{{2, 3, 8, 40}, Pool::max, 3, 2, 1},
                               PoolProblem{{1, 1, 5, 6}, Pool::max, 3, 2, 1},
                               PoolProblem{{1, 2, 9, 64}, Pool::max, 3, 2, 1}}) {
    SCOPED_TRACE(describe(p));
    layerref::Values xv(static_cast<size_t>(p.x.numel()));  // 0, 1 or 2, hashed: ties everywhere
    for (size_t i = 0; i < xv.size(); ++i)
      xv[i] = static_cast<double>(((i * 2654435761u) >> 11) % 3);
    expect_naive_max_pool(p, xv);
  }
}

// A NaN in a 3x3 stride-2 window wins: the first in row-major order, which the separable loop
// must find across its two passes (a NaN in an earlier row beats one in an earlier column).
TEST_P(PoolAlgo, MaxPool3x3Stride2NaNWins) {
  for (DType dt : {DType::f32, DType::f64}) {
    const double nan = std::numeric_limits<double>::quiet_NaN();
    layerref::Values v(4 * 6, 1.0);  // [1, 1, 4, 6] -> [1, 1, 2, 3]
    v[1 * 6 + 3] = nan;              // window (1, 1) covers rows 1-3, columns 1-3:
    v[2 * 6 + 1] = nan;              // (1, 3) comes first in row-major order, (2, 1) later
    v[0 * 6 + 1] = 5.0;              // window (0, 0) covers rows 0-1, columns 0-1:
    v[1 * 6 + 0] = nan;              // the NaN at (1, 0) beats the 5 at (0, 1)
    Tensor x = make(v, {1, 1, 4, 6}, dt).requires_grad_();
    const Tensor out = max_pool2d(x, 3, 2, 1);
    const layerref::Values o = exadnn::testing::values(out);
    EXPECT_TRUE(std::isnan(o[0]) && std::isnan(o[1 * 3 + 1])) << dtype_name(dt);
    out.backward(ones_like(out));
    const layerref::Values gx = exadnn::testing::values(x.grad());
    EXPECT_EQ(gx[1 * 6 + 3], 4.0)
        << "windows (0, 1), (0, 2), (1, 1), (1, 2) take the NaN at (1, 3)";
    EXPECT_EQ(gx[2 * 6 + 1], 0.0) << dtype_name(dt);
    EXPECT_EQ(gx[1 * 6 + 0], 2.0) << "windows (0, 0) and (1, 0) take the NaN at (1, 0)";
    EXPECT_EQ(gx[0 * 6 + 1], 0.0) << dtype_name(dt);
  }
}

INSTANTIATE_TEST_SUITE_P(Pool, PoolAlgo,
                         ::testing::Values(ConvAlgorithm::onednn, ConvAlgorithm::im2col),
                         [](const ::testing::TestParamInfo<ConvAlgorithm>& info) {
                           return std::string(conv_algorithm_name(info.param));
                         });

TEST(PoolAlgorithms, OnednnAndLoopsAgree) {
  for (const PoolProblem& p : problems()) {
    SCOPED_TRACE(describe(p));
    Generator gen(3);
    const Tensor x0 = randn(p.x, DType::f32, &gen);
    Tensor results[2][2];
    for (int a = 0; a < 2; ++a) {
      ConvAlgorithmGuard guard(a == 0 ? ConvAlgorithm::onednn : ConvAlgorithm::im2col);
      Tensor x = x0.clone().requires_grad_();
      const Tensor out = run(p, x);
      Generator ggen(4);
      out.backward(randn(out.shape(), DType::f32, &ggen));
      results[a][0] = out;
      results[a][1] = x.grad();
    }
    EXPECT_TRUE(all_close(results[0][0], results[1][0])) << "forward";
    EXPECT_TRUE(all_close(results[0][1], results[1][1])) << "backward";
  }
}

// The backward of max pooling follows the path its forward took, whatever is selected later.
TEST(PoolAlgorithms, SwitchingBetweenForwardAndBackward) {
  const PoolProblem p{{2, 3, 7, 7}, Pool::max, 3, 2, 1};
  const layerref::Values xv = data(p);
  const layerref::Values g = layerref::quantized(layerref::pool_out_shape(p).numel(), 2);
  for (int a = 0; a < 2; ++a) {
    Tensor x = make(xv, p.x, DType::f32).requires_grad_();
    Tensor out;
    {
      ConvAlgorithmGuard guard(a == 0 ? ConvAlgorithm::onednn : ConvAlgorithm::im2col);
      out = run(p, x);
    }
    ConvAlgorithmGuard guard(a == 0 ? ConvAlgorithm::im2col : ConvAlgorithm::onednn);
    out.backward(make(g, out.shape(), DType::f32));
    EXPECT_TRUE(matches(x.grad(), DType::f32, Ref{p.x, layerref::pool_backward(p, xv, g)}));
  }
}

TEST(PoolF64, ForwardMatchesNaiveLoop) {
  for (const PoolProblem& p : problems()) {
    SCOPED_TRACE(describe(p));
    const layerref::Values x = optest::uniform(p.x.numel(), 7);
    EXPECT_TRUE(
        matches(run(p, make(x, p.x, DType::f64)), DType::f64, layerref::pool_forward(p, x)));
  }
}

TEST(PoolGradcheck, EveryKind) {
  for (const PoolProblem& p : problems()) {
    if (p.x[0] * p.x[1] * p.x[2] * p.x[3] > 1000) continue;  // too big for finite differences
    SCOPED_TRACE(describe(p));
    Tensor x = optest::leaf(optest::distinct(p.x.numel(), 9), p.x);
    EXPECT_TRUE(gradcheck([p](const std::vector<Tensor>& in) { return run(p, in[0]); }, {x}));
  }
}

TEST(PoolGradcheck, StridedInput) {
  for (const PoolProblem& p : {PoolProblem{{2, 3, 6, 5}, Pool::max, 2, 1, 1},
                               PoolProblem{{2, 3, 6, 5}, Pool::avg_exclude, 3, 2, 1},
                               PoolProblem{{2, 3, 6, 5}, Pool::adaptive, {4, 3}}}) {
    SCOPED_TRACE(describe(p));
    Tensor x = optest::leaf(optest::distinct(p.x.numel(), 10), p.x, /*strided=*/true);
    EXPECT_TRUE(gradcheck([p](const std::vector<Tensor>& in) { return run(p, in[0]); }, {x}));
  }
}

TEST(PoolErrors, BadShapesAndParameters) {
  const Tensor x = zeros({2, 3, 8, 8});
  EXPECT_EXADNN_ERROR(max_pool2d(zeros({8, 8}), 2), "max_pool2d", "[8, 8]", "4-D");
  EXPECT_EXADNN_ERROR(max_pool2d(x, 3, 1, 2), "max_pool2d", "padding", "half the kernel");
  EXPECT_EXADNN_ERROR(avg_pool2d(x, 9), "avg_pool2d", "kernel (9, 9)", "[2, 3, 8, 8]");
  EXPECT_EXADNN_ERROR(avg_pool2d(x, 2, 0), "avg_pool2d", "stride");
  EXPECT_EXADNN_ERROR(max_pool2d(x, 0), "max_pool2d", "kernel");
  EXPECT_EXADNN_ERROR(adaptive_avg_pool2d(x, 0, 2), "adaptive_avg_pool2d", "output size");
  EXPECT_EXADNN_ERROR(adaptive_avg_pool2d(zeros({3, 8}), 1, 1), "adaptive_avg_pool2d", "[3, 8]");
  EXPECT_EXADNN_ERROR(adaptive_avg_pool2d(zeros({2, 3, 0, 4}), 1, 1), "adaptive_avg_pool2d",
                      "empty");
  EXPECT_EXADNN_ERROR(max_pool2d(zeros({1, 1, 4, 4}, DType::i32), 2),
                      "no kernel for op 'pool2d_forward'", "i32");
}

}  // namespace
