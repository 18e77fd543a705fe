// A convolution's input gradient as a forward convolution over the output gradient with the
// kernels transposed and turned (onednn_transposed_data.cpp), against oneDNN's backward-data
// pass: bit for bit on data whose sums are exact in f32 (a grid of 1/16), for square and
// rectangular kernels, no padding up to the widest (kernel - 1), odd sizes and one output
// column; and which problems it takes.
#include <gtest/gtest.h>

#include <vector>

#include "backend/cpu/nn_impl.h"
#include "backend/cpu/onednn_transposed_data.h"
#include "exact_grid.h"
#include "exadnn/exadnn.h"
#include "testing.h"

using namespace exadnn;
namespace onednn = exadnn::cpu::onednn;

namespace {

struct Problem {
  int64_t n, c, h, w, o, kh, kw, pad_h, pad_w;
};

Conv2dGeometry conv_of(const Problem& p) {
  Conv2dGeometry g;
  g.n = p.n, g.c = p.c, g.h = p.h, g.w = p.w, g.o = p.o, g.kh = p.kh, g.kw = p.kw;
  g.pad_h = p.pad_h, g.pad_w = p.pad_w;
  g.oh = p.h + 2 * p.pad_h - p.kh + 1;
  g.ow = p.w + 2 * p.pad_w - p.kw + 1;
  return g;
}

using exadnn::testing::exact_sum_grid;

// NCHW -> the same values stored channels-last ([N, H, W, C] contiguous), and back.
Tensor to_nhwc(const Tensor& t) {
  return t.permute({0, 2, 3, 1}).contiguous();
}
Tensor from_nhwc(const Tensor& t) {
  return t.permute({0, 3, 1, 2}).contiguous();
}

// dx [N, C, H, W] by the transposed route.
Tensor transposed_grad_x(const Conv2dGeometry& g, const Tensor& dy, const Tensor& w) {
  const onednn::TransposedData t = onednn::make_transposed_data(g);
  const Tensor dy_nhwc = to_nhwc(dy), dx_nhwc = empty({g.n, g.h, g.w, g.c});
  onednn::Scratch scratch;
  onednn::run_transposed_data(g, t, onednn::wrap(t.diff_dst, dy_nhwc), w,
                              onednn::wrap(t.diff_src, dx_nhwc), scratch);
  onednn::stream().wait();
  scratch.check_guards("transposed backward data");
  return from_nhwc(dx_nhwc);
}

TEST(TransposedBackwardData, MatchesOnednnsBackwardDataBitForBit) {
  const Problem problems[] = {
      {4, 32, 12, 12, 64, 5, 5, 0, 0},  // the CNN's conv2
      {2, 16, 9, 7, 32, 3, 3, 1, 1},    // odd sizes, padding 1
      {3, 5, 8, 11, 6, 3, 5, 0, 2},     // rectangular kernel, padding on one axis
      {2, 8, 6, 6, 16, 3, 3, 2, 2},     // padding kernel - 1: a larger output than input
      {1, 4, 5, 4, 8, 1, 1, 0, 0},      // 1x1
      {2, 3, 6, 5, 4, 5, 5, 0, 0},      // one output column
  };
  for (const Problem& p : problems) {
    const Conv2dGeometry g = conv_of(p);
    SCOPED_TRACE(::testing::Message()
                 << "c " << p.c << " " << p.h << "x" << p.w << " o " << p.o << " kernel " << p.kh
                 << "x" << p.kw << " pad " << p.pad_h << "," << p.pad_w);
    ASSERT_TRUE(onednn::transposed_data_takes(g));
    const Tensor dy = exact_sum_grid({g.n, g.o, g.oh, g.ow}, 1),
                 w = exact_sum_grid({g.o, g.c, g.kh, g.kw}, 2);
    const Tensor reference = empty({g.n, g.c, g.h, g.w});
    onednn::conv2d_backward_data(g, reference, dy, w);
    const Tensor dx = transposed_grad_x(g, dy, w);
    EXPECT_EQ(to_vector<float>(dx), to_vector<float>(reference));
    EXPECT_GT(sum(abs(reference)).item<double>(), 0.0);  // not all zero
  }
}

TEST(TransposedBackwardData, TakesStrideOneUndilatedSingleGroupProblemsOnly) {
  const Conv2dGeometry plain = conv_of({2, 8, 9, 9, 8, 3, 3, 1, 1});
  EXPECT_TRUE(onednn::transposed_data_takes(plain));
  Conv2dGeometry strided = plain;
  strided.stride_h = 2;
  strided.oh = 5;
  EXPECT_FALSE(onednn::transposed_data_takes(strided));
  Conv2dGeometry dilated = plain;
  dilated.dilation_w = 2;
  dilated.ow = 7;
  EXPECT_FALSE(onednn::transposed_data_takes(dilated));
  Conv2dGeometry grouped = plain;
  grouped.groups = 2;
  EXPECT_FALSE(onednn::transposed_data_takes(grouped));
  const Conv2dGeometry wide_padding = conv_of({2, 8, 9, 9, 8, 3, 3, 3, 3});
  EXPECT_FALSE(onednn::transposed_data_takes(wide_padding));
  EXPECT_EXADNN_ERROR(onednn::make_transposed_data(strided), "stride 1");
}

}  // namespace
