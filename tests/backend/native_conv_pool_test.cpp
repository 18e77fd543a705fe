// exadnn's convolution + 2x2 max pooling loop for few input channels (native_conv_pool.cpp)
// called directly, against the oneDNN step it replaces: the pooled values, the input's, the
// weights' and the bias's gradients, bit for bit on data whose sums are exact in f32 (a grid of
// 1/16: any summation order gives the same result), in NCHW and channels-last, with and without
// the ReLU after the pooling; and which problems it takes.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "backend/cpu/nn_impl.h"
#include "exact_grid.h"
#include "exadnn/exadnn.h"
#include "testing.h"

using namespace exadnn;

namespace {

struct Problem {
  int64_t n, c, h, w, o, k, pad;
};

Conv2dGeometry conv_of(const Problem& p) {
  Conv2dGeometry g;
  g.n = p.n, g.c = p.c, g.h = p.h, g.w = p.w, g.o = p.o, g.kh = g.kw = p.k;
  g.pad_h = g.pad_w = p.pad;
  g.oh = p.h + 2 * p.pad - p.k + 1;
  g.ow = p.w + 2 * p.pad - p.k + 1;
  return g;
}

Pool2dGeometry pool_of(const Conv2dGeometry& g) {
  Pool2dGeometry p;
  p.n = g.n, p.c = g.o, p.h = g.oh, p.w = g.ow;
  p.kh = p.kw = p.stride_h = p.stride_w = 2;
  p.oh = g.oh / 2, p.ow = g.ow / 2;
  return p;
}

using exadnn::testing::exact_sum_grid;

Tensor channels_last(const Tensor& t) {
  return t.permute({0, 2, 3, 1}).contiguous().permute({0, 3, 1, 2});
}

Tensor like(const Tensor& t, const Shape& shape) {
  return t.is_contiguous() ? empty(shape) : channels_last(empty(shape));
}

struct Result {
  std::vector<double> out, grad_x, grad_w, grad_b;
};

// Forward and backward of one implementation on the same inputs; `relu`: the ReLU variant, with
// relu_output set as the op sets it.
template <class Forward, class Backward>
Result run(const Conv2dGeometry& g, const Pool2dGeometry& p, const Tensor& x, const Tensor& w,
           const Tensor& b, const Tensor& grad_out, bool relu, Forward forward, Backward backward) {
  const Tensor out = like(grad_out, {p.n, p.c, p.oh, p.ow});
  ConvMaxPoolSaved saved = forward(g, p, out, x, w, b, relu);
  if (relu) saved.relu_output = out;
  const Tensor gx = like(x, x.shape()), gw = empty(w.shape()), gb = empty({g.o});
  backward(g, p, gx, gw, gb, grad_out, w, saved);
  using exadnn::testing::values;
  return {values(out), values(gx), values(gw), values(gb)};
}

}  // namespace

TEST(NativeConvPool, MatchesTheOnednnStepBitForBit) {
  if (!cpu::native::conv_pool_fits(conv_of({1, 1, 8, 8, 16, 3, 0}),
                                   pool_of(conv_of({1, 1, 8, 8, 16, 3, 0}))))
    GTEST_SKIP() << "exadnn's loop is built for AVX-512 and AVX2; this CPU runs oneDNN's step";
  std::vector<Problem> problems{{6, 1, 28, 28, 32, 5, 0},
                                {3, 3, 10, 14, 16, 3, 1},
                                {2, 2, 13, 11, 32, 7, 2},
                                {1, 4, 9, 9, 48, 1, 0}};
  const Problem eight_wide{2, 1, 9, 12, 24, 3, 1};  // three 8-lane vectors: AVX2's kernels only
  if (cpu::native::conv_pool_fits(conv_of(eight_wide), pool_of(conv_of(eight_wide))))
    problems.push_back(eight_wide);
  for (const Problem& pr : problems) {
    const Conv2dGeometry g = conv_of(pr);
    const Pool2dGeometry p = pool_of(g);
    ASSERT_TRUE(cpu::native::conv_pool_fits(g, p));
    for (auto [nhwc, relu] : {std::pair{false, false}, std::pair{true, false},
                              std::pair{false, true}, std::pair{true, true}}) {
      const std::string what = "x [" + std::to_string(pr.n) + ", " + std::to_string(pr.c) + ", " +
                               std::to_string(pr.h) + ", " + std::to_string(pr.w) + "], " +
                               std::to_string(pr.o) + " outputs, " + std::to_string(pr.k) + "x" +
                               std::to_string(pr.k) + (nhwc ? ", channels-last" : "") +
                               (relu ? ", ReLU" : "");
      Tensor x = exact_sum_grid({g.n, g.c, g.h, g.w}, 1),
             grad = exact_sum_grid({p.n, p.c, p.oh, p.ow}, 4);
      if (nhwc) x = channels_last(x), grad = channels_last(grad);
      const Tensor w = exact_sum_grid({g.o, g.c, g.kh, g.kw}, 2), b = exact_sum_grid({g.o}, 3);
      const Result native = run(g, p, x, w, b, grad, relu, &cpu::native::conv2d_max_pool_forward,
                                &cpu::native::conv2d_max_pool_backward);
      const Result onednn = run(g, p, x, w, b, grad, relu, &cpu::onednn::conv2d_max_pool_forward,
                                &cpu::onednn::conv2d_max_pool_backward);
      if (relu)  // the grid gives pooled values of both signs, so the ReLU's mask is exercised
        EXPECT_TRUE(std::count(native.out.begin(), native.out.end(), 0.0) > 0) << what;
      EXPECT_EQ(native.out, onednn.out) << what;
      EXPECT_EQ(native.grad_x, onednn.grad_x) << what;
      EXPECT_EQ(native.grad_w, onednn.grad_w) << what;
      EXPECT_EQ(native.grad_b, onednn.grad_b) << what;
    }
  }
}

// What it takes: few input channels, whole vectors of output channels, 2x2 pooling of stride 2,
// a plain convolution; everything else stays with oneDNN.
TEST(NativeConvPool, TakesFewInputChannelsAnd2x2PoolingOnly) {
  const Conv2dGeometry conv1 = conv_of({128, 1, 28, 28, 32, 5, 0});
  if (!cpu::native::conv_pool_fits(conv1, pool_of(conv1)))
    GTEST_SKIP() << "exadnn's loop is built for AVX-512 and AVX2; this CPU runs oneDNN's step";
  const Conv2dGeometry conv2 = conv_of({128, 32, 12, 12, 64, 5, 0});
  EXPECT_FALSE(cpu::native::conv_pool_fits(conv2, pool_of(conv2))) << "32 input channels";
  const Conv2dGeometry odd = conv_of({1, 1, 8, 8, 20, 3, 0});
  EXPECT_FALSE(cpu::native::conv_pool_fits(odd, pool_of(odd))) << "20 output channels";
  const Conv2dGeometry wide = conv_of({1, 1, 16, 16, 16, 9, 0});
  EXPECT_FALSE(cpu::native::conv_pool_fits(wide, pool_of(wide))) << "9x9 taps";
  Conv2dGeometry strided = conv1;
  strided.stride_h = strided.stride_w = 2;
  EXPECT_FALSE(cpu::native::conv_pool_fits(strided, pool_of(conv1))) << "stride 2";
  Pool2dGeometry three = pool_of(conv1);
  three.kh = three.kw = 3;
  EXPECT_FALSE(cpu::native::conv_pool_fits(conv1, three)) << "3x3 pooling";
}
