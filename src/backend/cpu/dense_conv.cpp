// Convolution of a small image as one dense GEMM (f32; the measured route ConvRoute::dense).
//
// When an image has fewer pixels than the kernel has taps (H·W < KH·KW: ResNet's 3x3
// convolutions on 2x2 maps, any kernel on 1x1 maps), most of the taps that im2col and oneDNN
// multiply lie in the padding. Written as a linear map of whole images instead,
//   y [N, O·OH·OW] = x [N, C·H·W] · T [C·H·W, O·OH·OW]   (+ bias)
// where T's entry ((c, iy, ix), (o, oy, ox)) is weight[o, c, ky, kx] for the tap linking input
// pixel (iy, ix) to output pixel (oy, ox) (0 where none does), every multiply-add is one a pixel
// really contributes: N·C·HW·O·OHW of them against im2col's N·C·KH·KW·O·OHW. Then
//   backward data     dx [N, C·HW]     = dy · Tᵀ
//   backward weights  dT [C·HW, O·OHW] = xᵀ · dy, each entry summed into its tap's weight
// T (or dT) is built in a scratch tensor per call: C·HW·O·OHW floats, 16 MB for 512 channels
// on 2x2 maps.
#include <algorithm>
#include <vector>

#include "loops.h"
#include "nn_impl.h"

namespace exadnn::cpu::dense {

namespace {

// Scratch above this many floats (256 MB) is not worth it; such problems take another route.
constexpr int64_t kMaxMatrix = int64_t{64} << 20;

// tap[i · out + o]: the kernel index linking input coordinate i to output coordinate o along one
// axis, -1 when none does.
std::vector<int64_t> taps(int64_t in, int64_t out, int64_t k, int64_t stride, int64_t pad,
                          int64_t dilation) {
  std::vector<int64_t> tap(static_cast<size_t>(in * out), -1);
  for (int64_t i = 0; i < in; ++i)
    for (int64_t o = 0; o < out; ++o) {
      const int64_t offset = i + pad - o * stride;
      if (offset >= 0 && offset % dilation == 0 && offset / dilation < k)
        tap[static_cast<size_t>(i * out + o)] = offset / dilation;
    }
  return tap;
}

// The dense matrix's geometry: rows (c, q) for input pixels q, columns (o, p) for output pixels p,
// and the tap linking each q to each p.
struct Map {
  int64_t rows, cols, hw, ohw, kk;
  // [hw · ohw]: the offset ky·KW + kx of the tap linking input pixel q to output pixel p, or -1.
  std::vector<int64_t> tap;
  explicit Map(const Conv2dGeometry& g)
      : rows(g.c * g.h * g.w),
        cols(g.o * g.oh * g.ow),
        hw(g.h * g.w),
        ohw(g.oh * g.ow),
        kk(g.kh * g.kw),
        tap(static_cast<size_t>(hw * ohw), -1) {
    const std::vector<int64_t> ty = taps(g.h, g.oh, g.kh, g.stride_h, g.pad_h, g.dilation_h);
    const std::vector<int64_t> tx = taps(g.w, g.ow, g.kw, g.stride_w, g.pad_w, g.dilation_w);
    for (int64_t q = 0; q < hw; ++q)
      for (int64_t p = 0; p < ohw; ++p) {
        const int64_t ky = ty[static_cast<size_t>((q / g.w) * g.oh + p / g.ow)];
        const int64_t kx = tx[static_cast<size_t>((q % g.w) * g.ow + p % g.ow)];
        if (ky >= 0 && kx >= 0) tap[static_cast<size_t>(q * ohw + p)] = ky * g.kw + kx;
      }
  }
};

Map checked_map(const Conv2dGeometry& g) {
  EXADNN_CHECK(applies(g), "conv2d", "the dense route takes images with fewer pixels than the ",
               "kernel has taps, one group and a dense matrix of at most ", kMaxMatrix,
               " floats (here ", g.h, "x", g.w, ", kernel ", g.kh, "x", g.kw, ", ", g.groups,
               " groups)");
  return Map(g);
}

// T [rows, cols] from weight [O, C, KH, KW]; one input channel's rows per thread, so its
// weights are read from cache for each of its pixels.
void build(const Conv2dGeometry& g, const Map& m, const float* w, float* t) {
#pragma omp parallel for schedule(static) if (m.rows * m.cols >= kParallelGrain)
  for (int64_t c = 0; c < g.c; ++c)
    for (int64_t q = 0; q < m.hw; ++q) {
      const int64_t* tap = m.tap.data() + q * m.ohw;
      float* row = t + (c * m.hw + q) * m.cols;
      for (int64_t o = 0; o < g.o; ++o, row += m.ohw) {
        const float* wk = w + (o * g.c + c) * m.kk;
        for (int64_t p = 0; p < m.ohw; ++p) row[p] = tap[p] < 0 ? 0.0f : wk[tap[p]];
      }
    }
}

Tensor matrix(const Map& m) {
  return scratch_tensor({m.rows, m.cols}, DType::f32);
}

// T of this weight, in a scratch tensor.
Tensor dense_matrix(const Conv2dGeometry& g, const Map& m, const Tensor& weight) {
  const Tensor t = matrix(m);
  build(g, m, weight.data<float>(), t.data<float>());
  return t;
}

}  // namespace

bool applies(const Conv2dGeometry& g) {
  return g.groups == 1 && g.h * g.w < g.kh * g.kw && g.n > 0 && g.c * g.o * g.oh * g.ow > 0 &&
         g.c * g.h * g.w * g.o * g.oh * g.ow <= kMaxMatrix;
}

void conv2d_forward(const Conv2dGeometry& g, const Tensor& out, const Tensor& x,
                    const Tensor& weight, const Tensor& bias) {
  const Map m = checked_map(g);
  const Tensor t = dense_matrix(g, m, weight);
  const float* tp = t.data<float>();
  gemm<float>(false, false, g.n, m.cols, m.rows, x.data<float>(), m.rows, tp, m.cols, 0.0,
              out.data<float>(), m.cols);
  if (bias.defined()) native::add_channel_bias<float>(g, out, bias);
}

void conv2d_backward_data(const Conv2dGeometry& g, const Tensor& grad_x, const Tensor& grad_out,
                          const Tensor& weight) {
  const Map m = checked_map(g);
  const Tensor t = dense_matrix(g, m, weight);
  const float* tp = t.data<float>();
  gemm<float>(false, true, g.n, m.rows, m.cols, grad_out.data<float>(), m.cols, tp, m.cols, 0.0,
              grad_x.data<float>(), m.rows);
}

void conv2d_backward_weights(const Conv2dGeometry& g, const Tensor& grad_weight,
                             const Tensor& grad_bias, const Tensor& grad_out, const Tensor& x) {
  const Map m = checked_map(g);
  if (grad_bias.defined())  // the sum of grad_out over samples and pixels, as im2col's
    native::conv2d_backward_weights<float>(g, Tensor(), grad_bias, grad_out, x);
  if (!grad_weight.defined()) return;
  const Tensor dt = matrix(m);
  float* dtp = dt.data<float>();
  gemm<float>(true, false, m.rows, m.cols, g.n, x.data<float>(), m.rows, grad_out.data<float>(),
              m.cols, 0.0, dtp, m.cols);
  // Each input channel's weights [O, KH, KW] are summed from its own rows of dT: one thread each.
  float* gw = grad_weight.data<float>();
#pragma omp parallel for schedule(static) if (m.rows * m.cols >= kParallelGrain)
  for (int64_t c = 0; c < g.c; ++c) {
    for (int64_t o = 0; o < g.o; ++o) std::fill_n(gw + (o * g.c + c) * m.kk, m.kk, 0.0f);
    for (int64_t q = 0; q < m.hw; ++q) {
      const int64_t* tap = m.tap.data() + q * m.ohw;
      const float* row = dtp + (c * m.hw + q) * m.cols;
      for (int64_t o = 0; o < g.o; ++o, row += m.ohw) {
        float* wk = gw + (o * g.c + c) * m.kk;
        for (int64_t p = 0; p < m.ohw; ++p)
          if (tap[p] >= 0) wk[tap[p]] += row[p];
      }
    }
  }
}

}  // namespace exadnn::cpu::dense
