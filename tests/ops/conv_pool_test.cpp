// conv2d_max_pool2d: the fused node (CPU f32: oneDNN in the convolution's layout, or exadnn's loop
// for few input channels) against max_pool2d(conv2d(...)) run as two ops, values and every
// gradient, over convolution and pooling geometries and both of its layouts (blocked below 16
// input channels, channels-last from 16); ties and NaN; f64 finite differences; the cases that
// run the two ops. conv2d_relu_max_pool2d against relu(max_pool2d(conv2d(...))) the same way.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>

#include "layer_ref.h"

using namespace exadnn;
using exadnn::layerref::quantized;
using exadnn::testing::all_close;
using exadnn::testing::gradcheck;
using exadnn::testing::random_leaf;

namespace {

struct Problem {
  Shape x, w;
  bool bias;
  Conv2dParams conv;
  Size2 kernel, stride, padding;
};

const std::vector<Problem>& problems() {
  static const std::vector<Problem> v{
      {{4, 1, 28, 28}, {32, 1, 5, 5}, true, {}, 2, 2, 0},            // CNN conv1 (blocked)
      {{4, 32, 12, 12}, {64, 32, 5, 5}, true, {}, 2, 2, 0},          // CNN conv2 (channels-last)
      {{2, 3, 9, 8}, {5, 3, 3, 3}, false, {.padding = 1}, 3, 2, 1},  // overlapping windows
      {{2, 16, 7, 7}, {8, 16, 3, 3}, true, {.stride = 2}, {2, 1}, 1, 0},  // rectangular pool
      {{2, 4, 9, 9}, {6, 2, 3, 3}, true, {.dilation = 2, .groups = 2}, 2, 2, 0},
      // exadnn's loop for few input channels (on AVX-512 machines; native_conv_pool.cpp): 16
      // output channels (one vector), padding, an odd number of pooled columns (7)
      {{3, 3, 10, 14}, {16, 3, 3, 3}, true, {.padding = 1}, 2, 2, 0},
      // 7x7 taps, no bias, an odd number of convolution rows (11: the last one unpooled)
      {{2, 2, 13, 11}, {32, 2, 7, 7}, false, {.padding = 2}, 2, 2, 0},
      // 1x1 taps, 48 channels (three vectors), a single image
      {{1, 4, 9, 9}, {48, 4, 1, 1}, true, {}, 2, 2, 0},
      // oneDNN's channels-last convolution, exadnn's channels-last pooling: an odd number of
      // convolution rows and columns (7: the last of each unpooled, its gradient zero)
      {{2, 16, 9, 9}, {32, 16, 3, 3}, true, {}, 2, 2, 0},
  };
  return v;
}

// f32 values on a grid of 1/16 in [-1, 1] (layer_ref.h): every sum is exact in f32, so the fused
// node and the two ops agree whatever order their kernels sum in.
Tensor grid(const Shape& shape, uint64_t seed) {
  return from_vector<double>(quantized(shape.numel(), seed)).to(DType::f32).reshape(shape);
}

// The leaves of one run: copies of the same values, each its own graph.
struct Leaves {
  Tensor x, w, b;
  Leaves(const Tensor& x0, const Tensor& w0, const Tensor& b0, bool x_grad)
      : x(x0.detach().requires_grad_(x_grad)),
        w(w0.detach().requires_grad_()),
        b(b0.defined() ? b0.detach().requires_grad_() : Tensor()) {}
};

// Backward of sum(y · r) for a fixed r on the grid; the leaves' gradients.
void backward(const Tensor& y) {
  sum(mul(y, grid(y.shape(), 7))).backward();
}

}  // namespace

TEST(ConvMaxPool, MatchesTheTwoOpsWithEveryGradient) {
  for (const Problem& p : problems()) {
    for (bool x_grad : {true, false}) {  // a first layer's input needs no gradient
      const Tensor x0 = grid(p.x, 1), w0 = grid(p.w, 2);
      const Tensor b0 = p.bias ? grid({p.w[0]}, 3) : Tensor();
      const Leaves fused(x0, w0, b0, x_grad), plain(x0, w0, b0, x_grad);
      const Tensor yf =
          conv2d_max_pool2d(fused.x, fused.w, fused.b, p.conv, p.kernel, p.stride, p.padding);
      const Tensor yp =
          max_pool2d(conv2d(plain.x, plain.w, plain.b, p.conv), p.kernel, p.stride, p.padding);
      const std::string what = "x " + detail::cat(p.x) + " w " + detail::cat(p.w);
      ASSERT_TRUE(all_close(yf, yp)) << what;
      backward(yf);
      backward(yp);
      EXPECT_TRUE(all_close(fused.w.grad(), plain.w.grad())) << what;
      if (p.bias) EXPECT_TRUE(all_close(fused.b.grad(), plain.b.grad())) << what;
      if (x_grad) EXPECT_TRUE(all_close(fused.x.grad(), plain.x.grad())) << what;
      if (!x_grad) EXPECT_FALSE(fused.x.grad().defined());
    }
  }
}

// Channels-last input and output (what Sequential passes between two of these nodes): the same
// values and gradients as the contiguous run, the result in the format asked for. The incoming
// gradient (from mul) is contiguous: the node converts it. (A leaf's .grad() is stored packed,
// so the input gradient's own format shows only inside a graph: LayerFusion's two-step test.)
TEST(ConvMaxPool, ChannelsLastInputAndOutput) {
  const auto channels_last = [](const Tensor& t) {
    return t.permute({0, 2, 3, 1}).contiguous().permute({0, 3, 1, 2});
  };
  for (const Problem& p : problems()) {
    const Tensor x0 = grid(p.x, 1), w0 = grid(p.w, 2);
    const Tensor b0 = p.bias ? grid({p.w[0]}, 3) : Tensor();
    const Leaves plain(x0, w0, b0, true);
    const Tensor yp =
        conv2d_max_pool2d(plain.x, plain.w, plain.b, p.conv, p.kernel, p.stride, p.padding);
    backward(yp);
    for (bool x_channels_last : {false, true}) {
      for (MemoryFormat format : {MemoryFormat::contiguous, MemoryFormat::channels_last}) {
        const Leaves fused(x_channels_last ? channels_last(x0) : x0, w0, b0, true);
        const Tensor y = conv2d_max_pool2d(fused.x, fused.w, fused.b, p.conv, p.kernel, p.stride,
                                           p.padding, format);
        const std::string what =
            "x " + detail::cat(p.x) + " w " + detail::cat(p.w) +
            (x_channels_last ? " x channels-last" : "") +
            (format == MemoryFormat::channels_last ? " out channels-last" : "");
        EXPECT_EQ(y.is_contiguous(), format == MemoryFormat::contiguous) << what;
        EXPECT_TRUE(format == MemoryFormat::contiguous || is_channels_last(y)) << what;
        ASSERT_EQ(exadnn::testing::values(y), exadnn::testing::values(yp)) << what;
        backward(y);
        EXPECT_EQ(exadnn::testing::values(fused.w.grad()), exadnn::testing::values(plain.w.grad()))
            << what;
        if (p.bias)
          EXPECT_EQ(exadnn::testing::values(fused.b.grad()),
                    exadnn::testing::values(plain.b.grad()))
              << what;
        EXPECT_EQ(exadnn::testing::values(fused.x.grad()), exadnn::testing::values(plain.x.grad()))
            << what;
      }
    }
  }
}

// A frozen weight with a trained bias: the bias gradient alone.
TEST(ConvMaxPool, BiasGradientWithAFrozenWeight) {
  manual_seed(4);
  const Tensor x = randn({2, 3, 8, 8}), w = randn({4, 3, 3, 3});
  const Tensor bf = randn({4}).requires_grad_(), bp = bf.detach().requires_grad_();
  backward(conv2d_max_pool2d(x, w, bf, {}, 2, 2));
  backward(max_pool2d(conv2d(x, w, bp), 2, 2));
  EXPECT_TRUE(all_close(bf.grad(), bp.grad()));
}

TEST(ConvMaxPool, GradientsMatchFiniteDifferences) {
  const Tensor x = random_leaf({2, 2, 6, 6}, 1), w = random_leaf({3, 2, 3, 3}, 2);
  const Tensor b = random_leaf({3}, 3);
  EXPECT_TRUE(gradcheck(
      [](const std::vector<Tensor>& in) {
        return conv2d_max_pool2d(in[0], in[1], in[2], {.padding = 1}, 2, 2);
      },
      {x, w, b}));
}

// 1x1 weights [16, c, 1, 1] that pass x through: every output channel x's only channel (c = 1),
// or output channel i input channel i (c = 16).
Tensor pass_through(int64_t c) {
  std::vector<float> w(static_cast<size_t>(16 * c), 0.0f);
  for (int64_t o = 0; o < 16; ++o) w[static_cast<size_t>(o * c + (c == 1 ? 0 : o))] = 1.0f;
  return from_vector<float>(w).reshape({16, c, 1, 1});
}

// Data of 0, 1 and 2 so that a window's four outputs tie everywhere: the pooled value and every
// gradient go to the window's first maximum in row-major order, as in the two ops. One input
// channel (exadnn's convolution + pooling loop on AVX-512 machines) and 16 (oneDNN's
// channels-last convolution, exadnn's channels-last pooling).
TEST(ConvMaxPool, TiesGoToTheFirstMaximumAsInTheTwoOps) {
  const auto hashed = [](const Shape& shape, uint64_t salt) {
    layerref::Values v(static_cast<size_t>(shape.numel()));
    for (size_t i = 0; i < v.size(); ++i)
      v[i] = static_cast<double>((((i + salt) * 2654435761u) >> 11) % 3);
    return from_vector<double>(v).to(DType::f32).reshape(shape);
  };
  for (const Tensor& w0 : {hashed({16, 1, 1, 1}, 1), hashed({32, 1, 3, 3}, 1), pass_through(16)}) {
    const int64_t c = w0.size(1);
    const Tensor x0 = hashed({2, c, 12, 18}, 0), b0 = zeros({w0.size(0)});
    const Leaves fused(x0, w0, b0, true), plain(x0, w0, b0, true);
    const Tensor yf = conv2d_max_pool2d(fused.x, fused.w, fused.b, {}, 2, 2, 0);
    const Tensor yp = max_pool2d(conv2d(plain.x, plain.w, plain.b), 2, 2, 0);
    const Shape w = w0.shape();
    ASSERT_EQ(exadnn::testing::values(yf), exadnn::testing::values(yp)) << w;
    backward(yf);
    backward(yp);
    EXPECT_EQ(exadnn::testing::values(fused.x.grad()), exadnn::testing::values(plain.x.grad()))
        << w;
    EXPECT_EQ(exadnn::testing::values(fused.w.grad()), exadnn::testing::values(plain.w.grad()))
        << w;
    EXPECT_EQ(exadnn::testing::values(fused.b.grad()), exadnn::testing::values(plain.b.grad()))
        << w;
  }
}

// A NaN in a window wins, the first one in row-major order, and takes the window's gradient: the
// pooled values and the input's gradient of the two ops, for 1 and 16 input channels (weights
// that pass x through, so every output channel pools the same pattern).
TEST(ConvMaxPool, NaNWinsAsInTheTwoOps) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  std::vector<float> v(4 * 6, 1.0f);  // one [4, 6] plane -> [2, 3] pooled
  v[0 * 6 + 3] = nan;                 // window (0, 1): top right
  v[1 * 6 + 2] = nan;                 // and bottom left, later
  v[2 * 6 + 0] = 5.0f;                // window (1, 0): a NaN below a 5
  v[3 * 6 + 1] = nan;
  for (int64_t c : {1, 16}) {
    const Tensor plane = from_vector<float>(v).reshape({1, 1, 4, 6});
    const Tensor x0 = mul(plane, ones({1, c, 1, 1})), w0 = pass_through(c);
    const Leaves fused(x0, w0, zeros({16}), true), plain(x0, w0, zeros({16}), true);
    const Tensor yf = conv2d_max_pool2d(fused.x, fused.w, fused.b, {}, 2, 2, 0);
    const Tensor yp = max_pool2d(conv2d(plain.x, plain.w, plain.b), 2, 2, 0);
    const layerref::Values of = exadnn::testing::values(yf), op = exadnn::testing::values(yp);
    ASSERT_EQ(of.size(), op.size());
    for (size_t i = 0; i < of.size(); ++i) {
      EXPECT_EQ(std::isnan(of[i]), std::isnan(op[i])) << i << ", " << c << " channels";
      if (!std::isnan(op[i])) EXPECT_EQ(of[i], op[i]) << i << ", " << c << " channels";
    }
    EXPECT_TRUE(std::isnan(of[1]) && std::isnan(of[3])) << "windows (0, 1) and (1, 0)";
    yf.backward(ones_like(yf));
    yp.backward(ones_like(yp));
    const layerref::Values gf = exadnn::testing::values(fused.x.grad());
    EXPECT_EQ(gf, exadnn::testing::values(plain.x.grad())) << c << " channels";
    const double taken = 16.0 / static_cast<double>(c);  // output channels per input channel
    EXPECT_EQ(gf[0 * 6 + 3], taken) << "the first NaN of window (0, 1), " << c << " channels";
    EXPECT_EQ(gf[1 * 6 + 2], 0.0);
    EXPECT_EQ(gf[3 * 6 + 1], taken) << "the NaN of window (1, 0), not the 5";
    EXPECT_EQ(gf[2 * 6 + 0], 0.0);
  }
}

// conv2d_relu_max_pool2d against relu(max_pool2d(conv2d(...))) run as three ops: values and
// every gradient bit for bit, over every geometry (exadnn's loop and oneDNN's) and both output
// formats. On the grid about half the pooled values are < 0 and some exactly 0: the ReLU drops
// their gradient.
TEST(ConvReluMaxPool, MatchesTheThreeOpsWithEveryGradient) {
  for (const Problem& p : problems()) {
    const Tensor x0 = grid(p.x, 1), w0 = grid(p.w, 2);
    const Tensor b0 = p.bias ? grid({p.w[0]}, 3) : Tensor();
    const Leaves plain(x0, w0, b0, true);
    const Tensor yp =
        relu(max_pool2d(conv2d(plain.x, plain.w, plain.b, p.conv), p.kernel, p.stride, p.padding));
    backward(yp);
    const layerref::Values vp = exadnn::testing::values(yp);
    const auto zeroed = std::count(vp.begin(), vp.end(), 0.0);
    ASSERT_GT(zeroed, 0);
    ASSERT_LT(zeroed, static_cast<std::ptrdiff_t>(vp.size()));
    for (MemoryFormat format : {MemoryFormat::contiguous, MemoryFormat::channels_last}) {
      const Leaves fused(x0, w0, b0, true);
      const Tensor y = conv2d_relu_max_pool2d(fused.x, fused.w, fused.b, p.conv, p.kernel, p.stride,
                                              p.padding, format);
      const std::string what = "x " + detail::cat(p.x) + " w " + detail::cat(p.w) +
                               (format == MemoryFormat::channels_last ? " out channels-last" : "");
      ASSERT_EQ(y.grad_fn()->name(), "conv2d_relu_max_pool2d") << what << ": not fused";
      ASSERT_EQ(exadnn::testing::values(y), vp) << what;
      backward(y);
      EXPECT_EQ(exadnn::testing::values(fused.w.grad()), exadnn::testing::values(plain.w.grad()))
          << what;
      if (p.bias)
        EXPECT_EQ(exadnn::testing::values(fused.b.grad()), exadnn::testing::values(plain.b.grad()))
            << what;
      EXPECT_EQ(exadnn::testing::values(fused.x.grad()), exadnn::testing::values(plain.x.grad()))
          << what;
    }
  }
}

// A pooled NaN becomes 0 and passes no gradient, as relu(max_pool2d(...)) has it (exadnn's relu
// maps NaN to 0), for 1 and 16 input channels (exadnn's loop and oneDNN's).
TEST(ConvReluMaxPool, APooledNaNIsZeroedWithNoGradient) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  std::vector<float> v(4 * 6, 1.0f);  // one [4, 6] plane -> [2, 3] pooled
  v[0 * 6 + 3] = nan;                 // window (0, 1)
  v[2 * 6 + 0] = -5.0f;               // window (1, 0): all negative
  v[2 * 6 + 1] = v[3 * 6 + 0] = v[3 * 6 + 1] = -1.0f;
  for (int64_t c : {1, 16}) {
    const Tensor plane = from_vector<float>(v).reshape({1, 1, 4, 6});
    const Tensor x0 = mul(plane, ones({1, c, 1, 1})), w0 = pass_through(c);
    const Leaves fused(x0, w0, zeros({16}), true), plain(x0, w0, zeros({16}), true);
    const Tensor yf = conv2d_relu_max_pool2d(fused.x, fused.w, fused.b, {}, 2, 2, 0);
    const Tensor yp = relu(max_pool2d(conv2d(plain.x, plain.w, plain.b), 2, 2, 0));
    const layerref::Values of = exadnn::testing::values(yf);
    ASSERT_EQ(of, exadnn::testing::values(yp)) << c << " channels";
    EXPECT_EQ(of[1], 0.0) << "the NaN window";
    EXPECT_EQ(of[3], 0.0) << "the negative window";
    yf.backward(ones_like(yf));
    yp.backward(ones_like(yp));
    const layerref::Values gf = exadnn::testing::values(fused.x.grad());
    EXPECT_EQ(gf, exadnn::testing::values(plain.x.grad())) << c << " channels";
    for (int64_t i : {0 * 6 + 2, 0 * 6 + 3, 1 * 6 + 2, 1 * 6 + 3, 2 * 6 + 0, 2 * 6 + 1})
      EXPECT_EQ(gf[static_cast<size_t>(i)], 0.0) << i << ", " << c << " channels";
    EXPECT_EQ(exadnn::testing::values(fused.b.grad()), exadnn::testing::values(plain.b.grad()));
  }
}

TEST(ConvReluMaxPool, GradientsMatchFiniteDifferences) {
  const Tensor x = random_leaf({2, 2, 6, 6}, 4), w = random_leaf({3, 2, 3, 3}, 5);
  const Tensor b = random_leaf({3}, 6);
  EXPECT_TRUE(gradcheck(
      [](const std::vector<Tensor>& in) {
        return conv2d_relu_max_pool2d(in[0], in[1], in[2], {.padding = 1}, 2, 2);
      },
      {x, w, b}));
}

// Where the fused kernels do not apply, the node is the two ops, bit for bit.
TEST(ConvMaxPool, ExadnnsOwnLoopsRunTheTwoOps) {
  manual_seed(5);
  const Tensor x = randn({2, 3, 8, 8}), w = randn({4, 3, 3, 3}), b = randn({4});
  const ConvAlgorithmGuard im2col(ConvAlgorithm::im2col);
  EXPECT_EQ(exadnn::testing::values(conv2d_max_pool2d(x, w, b, {}, 2, 2)),
            exadnn::testing::values(max_pool2d(conv2d(x, w, b), 2, 2)));
}

TEST(ConvMaxPool, NamesItsErrors) {
  EXPECT_EXADNN_ERROR(
      conv2d_max_pool2d(zeros({1, 3, 8, 8}), zeros({4, 2, 3, 3}), Tensor(), {}, 2, 2), "conv2d",
      "3 channels");
  EXPECT_EXADNN_ERROR(
      conv2d_max_pool2d(zeros({1, 3, 8, 8}), zeros({4, 3, 3, 3}), zeros({5}), {}, 2, 2),
      "conv2d_max_pool2d", "bias must have shape [4]");
  EXPECT_EXADNN_ERROR(
      conv2d_max_pool2d(zeros({1, 3, 4, 4}), zeros({4, 3, 3, 3}), Tensor(), {}, 3, 3),
      "conv2d_max_pool2d", "larger than the input");
}
