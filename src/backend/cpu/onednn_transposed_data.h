// A convolution's input gradient as a forward convolution (internal to the CPU backend).
//
// For stride 1 and no dilation, backward data is itself a convolution: the output gradient
// dy [N, O, OH, OW], padded by (KH - 1 - pad_h, KW - 1 - pad_w), correlated with the kernels
// transposed (O <-> C) and turned by 180 degrees, gives dx [N, C, H, W]:
//   dx[n, c, y, x] = sum_{o, i, j} dy[n, o, y + i - (KH - 1 - pad_h), x + j - ...]
//                                  * w[o, c, KH - 1 - i, KW - 1 - j]
// oneDNN 2.6 runs channels-last forward convolutions by its brgconv kernels, which skip the
// padded taps, but its channels-last backward-data pass by an older kernel: for the CNN's conv2
// ([128, 32, 12, 12], 5x5 -> 64, 2 threads, the same non-zero data for both) the forward form
// takes 2.21-2.23 ms where backward data takes 2.31-2.46 ms (the same FLOPs; on all-zero data
// both run ~10 % faster, so time them on real values). The sums run in another order, so the
// gradient differs from backward data's by f32 rounding only.
#pragma once

#include <string>

#include "exadnn/backend/nn_kernels.h"
#include "onednn_context.h"

namespace exadnn::cpu::onednn {

/// The problems the route takes: f32, one group, stride 1, no dilation, padding below the
/// kernel's extent (so the transposed padding is not negative).
bool transposed_data_takes(const Conv2dGeometry& g);

/// The forward primitive computing dx from dy in channels-last layout, with the transposed and
/// turned kernels' layout.
struct TransposedData {
  dnnl::convolution_forward prim;
  memory::desc scratchpad;
  memory::desc diff_dst, diff_src;  // [N, O, OH, OW] and [N, C, H, W], channels-last
  Layout weights;                   // [C, O, KH, KW] (the turned kernels) -> the primitive's
  std::string implementation;       // oneDNN's name of the kernel ("brgconv:avx512_core")
  /// True when oneDNN runs it by a brgconv kernel (the case where it beats backward data).
  bool brgconv() const;
};

/// The route's primitive for g (transposed_data_takes(g) must hold).
TransposedData make_transposed_data(const Conv2dGeometry& g);

/// diff_src = the input gradient for diff_dst (memory of t.diff_dst's layout) and the OIHW
/// kernels `weight`, complete on return (the turned kernels are a temporary of the call;
/// `scratch` takes the primitive's scratchpad and a reordered copy of them).
void run_transposed_data(const Conv2dGeometry& g, const TransposedData& t, const memory& diff_dst,
                         const Tensor& weight, const memory& diff_src, Scratch& scratch);

}  // namespace exadnn::cpu::onednn
