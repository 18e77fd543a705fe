// The dense convolution route (src/backend/cpu/dense_conv.cpp): images with fewer pixels than
// the kernel has taps as one GEMM against the convolution's dense matrix. Reference: exadnn's
// im2col loops (themselves checked against finite differences in f64), on data whose sums are
// exact in f32, so both routes must agree to the bit; gradients also against central differences
// of the dense forward itself.
#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <string>
#include <vector>

#include "backend/cpu/conv_tuning.h"
#include "backend/cpu/nn_impl.h"
#include "backend/cpu/route_tuning.h"
#include "exadnn/exadnn.h"
#include "scratch_dir.h"
#include "testing.h"

using namespace exadnn;

namespace {

Conv2dGeometry make(int64_t n, int64_t c, int64_t h, int64_t w, int64_t o, int64_t kh, int64_t kw,
                    int64_t stride, int64_t pad, int64_t dilation) {
  Conv2dGeometry g;
  g.n = n, g.c = c, g.h = h, g.w = w, g.o = o, g.kh = kh, g.kw = kw;
  g.stride_h = g.stride_w = stride;
  g.pad_h = g.pad_w = pad;
  g.dilation_h = g.dilation_w = dilation;
  g.oh = (h + 2 * pad - dilation * (kh - 1) - 1) / stride + 1;
  g.ow = (w + 2 * pad - dilation * (kw - 1) - 1) / stride + 1;
  return g;
}

// Multiples of 1/16 in [-1, 1] (a fixed sequence): the convolutions below sum them exactly.
Tensor sixteenths(const Shape& shape, int64_t seed) {
  std::vector<float> v(static_cast<size_t>(shape.numel()));
  for (size_t i = 0; i < v.size(); ++i)
    v[i] = static_cast<float>((static_cast<int64_t>(i) * 7 + seed * 13) % 33 - 16) / 16.0f;
  return from_vector<float>(v, shape);
}

Tensor empty_f32(const Shape& shape) {
  return zeros(shape, TensorOptions(DType::f32));
}

struct Problem {
  const char* what;
  Conv2dGeometry g;
};

// Every kind the route takes: 2x2 and 1x1 maps, strides, dilation, rectangular kernels, C != O.
std::vector<Problem> problems() {
  return {{"3x3 on 2x2, pad 1", make(3, 5, 2, 2, 4, 3, 3, 1, 1, 1)},
          {"3x3 on 1x1, pad 1", make(2, 6, 1, 1, 3, 3, 3, 1, 1, 1)},
          {"3x3 on 2x2, stride 2", make(2, 4, 2, 2, 5, 3, 3, 2, 1, 1)},
          {"3x3 on 2x2, dilation 2, pad 2", make(2, 3, 2, 2, 4, 3, 3, 1, 2, 2)},
          {"3x5 on 2x3, pad 1", make(2, 3, 2, 3, 2, 3, 5, 1, 1, 1)},
          {"2x2 on 1x1, pad 1", make(1, 2, 1, 1, 3, 2, 2, 1, 1, 1)},
          {"5x5 on 4x2, pad 2", make(2, 2, 4, 2, 3, 5, 5, 1, 2, 1)}};
}

}  // namespace

TEST(DenseConv, TakesOnlyImagesWithFewerPixelsThanTaps) {
  for (const Problem& p : problems()) EXPECT_TRUE(cpu::dense::applies(p.g)) << p.what;
  EXPECT_FALSE(cpu::dense::applies(make(2, 3, 3, 3, 4, 3, 3, 1, 1, 1)));  // 9 pixels, 9 taps
  Conv2dGeometry grouped = make(2, 4, 2, 2, 4, 3, 3, 1, 1, 1);
  grouped.groups = 2;
  EXPECT_FALSE(cpu::dense::applies(grouped));
  const Conv2dGeometry big = make(2, 3, 8, 8, 4, 3, 3, 1, 1, 1);
  const Tensor out = empty_f32({2, 4, 8, 8});
  EXPECT_EXADNN_ERROR(cpu::dense::conv2d_forward(big, out, empty_f32({2, 3, 8, 8}),
                                                 empty_f32({4, 3, 3, 3}), Tensor()),
                      "dense route", "8x8");
}

TEST(DenseConv, EveryPassEqualsIm2colToTheBit) {
  for (const Problem& p : problems()) {
    const Conv2dGeometry& g = p.g;
    const Tensor x = sixteenths({g.n, g.c, g.h, g.w}, 1);
    const Tensor w = sixteenths({g.o, g.c, g.kh, g.kw}, 2);
    const Tensor b = sixteenths({g.o}, 3);
    const Tensor dy = sixteenths({g.n, g.o, g.oh, g.ow}, 4);
    for (const bool with_bias : {false, true}) {
      const Tensor bias = with_bias ? b : Tensor();
      const Tensor y_dense = empty_f32(dy.shape()), y_ref = empty_f32(dy.shape());
      cpu::dense::conv2d_forward(g, y_dense, x, w, bias);
      cpu::native::conv2d_forward<float>(g, y_ref, x, w, bias);
      EXPECT_EQ(exadnn::testing::values(y_dense), exadnn::testing::values(y_ref))
          << p.what << " forward";
    }
    const Tensor dx_dense = empty_f32(x.shape()), dx_ref = empty_f32(x.shape());
    cpu::dense::conv2d_backward_data(g, dx_dense, dy, w);
    cpu::native::conv2d_backward_data<float>(g, dx_ref, dy, w);
    EXPECT_EQ(exadnn::testing::values(dx_dense), exadnn::testing::values(dx_ref))
        << p.what << " data";
    const Tensor dw_dense = full(w.shape(), 99.0, TensorOptions(DType::f32));  // overwritten
    const Tensor dw_ref = empty_f32(w.shape());
    const Tensor db_dense = empty_f32(b.shape()), db_ref = empty_f32(b.shape());
    cpu::dense::conv2d_backward_weights(g, dw_dense, db_dense, dy, x);
    cpu::native::conv2d_backward_weights<float>(g, dw_ref, db_ref, dy, x);
    EXPECT_EQ(exadnn::testing::values(dw_dense), exadnn::testing::values(dw_ref))
        << p.what << " weights";
    EXPECT_EQ(exadnn::testing::values(db_dense), exadnn::testing::values(db_ref))
        << p.what << " bias";
  }
}

// L(x, w) = Σ conv(x, w) · r is linear in each, so central differences are exact but for f32
// rounding; the gradients the dense backward passes give must match them.
TEST(DenseConv, GradientsMatchFiniteDifferencesOfItsForward) {
  const Conv2dGeometry g = make(2, 3, 2, 2, 4, 3, 3, 1, 1, 1);
  const Tensor x = sixteenths({g.n, g.c, g.h, g.w}, 5);
  const Tensor w = sixteenths({g.o, g.c, g.kh, g.kw}, 6);
  const Tensor r = sixteenths({g.n, g.o, g.oh, g.ow}, 7);
  const auto loss = [&](const Tensor& xs, const Tensor& ws) {
    const Tensor y = empty_f32(r.shape());
    cpu::dense::conv2d_forward(g, y, xs, ws, Tensor());
    double l = 0;
    const std::vector<double> yv = exadnn::testing::values(y), rv = exadnn::testing::values(r);
    for (size_t i = 0; i < yv.size(); ++i) l += yv[i] * rv[i];
    return l;
  };
  const Tensor dx = empty_f32(x.shape()), dw = empty_f32(w.shape());
  cpu::dense::conv2d_backward_data(g, dx, r, w);
  cpu::dense::conv2d_backward_weights(g, dw, Tensor(), r, x);
  const double h = 0.25;
  for (const bool of_x : {true, false}) {
    const Tensor& at = of_x ? x : w;
    const std::vector<double> analytic = exadnn::testing::values(of_x ? dx : dw);
    for (int64_t i = 0; i < at.numel(); ++i) {
      const Tensor plus = at.clone(), minus = at.clone();
      plus.data<float>()[i] += static_cast<float>(h);
      minus.data<float>()[i] -= static_cast<float>(h);
      const double numeric = of_x ? (loss(plus, w) - loss(minus, w)) / (2 * h)
                                  : (loss(x, plus) - loss(x, minus)) / (2 * h);
      EXPECT_NEAR(analytic[static_cast<size_t>(i)], numeric, 1e-4) << (of_x ? "x" : "w") << i;
    }
  }
}

// Through the public conv2d: a wisdom file naming the dense route for a 2x2 problem's three
// passes runs it, with the same bits as the im2col algorithm.
TEST(DenseConv, IsARouteTheTunerCanChoose) {
  exadnn::testing::ScratchDir dir("exadnn_dense_");
  ::setenv("EXADNN_CONV_WISDOM", dir.file("wisdom").c_str(), 1);
  cpu::forget_tuned_routes();
  const Conv2dGeometry g = make(2, 3, 2, 2, 4, 3, 3, 1, 1, 1);
  {
    std::ofstream out(dir.file("wisdom"));
    using cpu::ConvPass;
    for (ConvPass pass : {ConvPass::forward, ConvPass::backward_data, ConvPass::backward_weights})
      out << cpu::conv_wisdom_key(g, pass != ConvPass::backward_data, pass) << " dense\n";
  }
  const auto step = [&] {
    Tensor x = sixteenths({2, 3, 2, 2}, 1).requires_grad_(true);
    Tensor w = sixteenths({4, 3, 3, 3}, 2).requires_grad_(true);
    Tensor b = sixteenths({4}, 3).requires_grad_(true);
    Conv2dParams p;
    p.padding = 1;
    const Tensor out = conv2d(x, w, b, p);
    sum(out * out).backward();
    return std::vector<Tensor>{out.detach(), x.grad(), w.grad(), b.grad()};
  };
  std::vector<Tensor> routed, im2col;
  {
    ConvAlgorithmGuard guard(ConvAlgorithm::fastest);
    routed = step();
  }
  {
    ConvAlgorithmGuard guard(ConvAlgorithm::im2col);
    im2col = step();
  }
  for (size_t i = 0; i < routed.size(); ++i)
    EXPECT_EQ(exadnn::testing::values(routed[i]), exadnn::testing::values(im2col[i])) << i;
  std::ifstream in(dir.file("wisdom"));
  int lines = 0;
  for (std::string line; std::getline(in, line);) ++lines;
  EXPECT_EQ(lines, 3);  // followed, nothing measured
  ::unsetenv("EXADNN_CONV_WISDOM");
  cpu::forget_tuned_routes();
}
