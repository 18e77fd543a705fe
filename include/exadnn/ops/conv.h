// 2-D convolution over NCHW tensors (cross-correlation, like every deep-learning framework).
// On the CPU it runs through oneDNN or im2col + GEMM (see backend/conv_algorithm.h).
#pragma once

#include <cstdint>

#include "exadnn/backend/conv_algorithm.h"
#include "exadnn/core/tensor.h"
#include "exadnn/ops/size2.h"

namespace exadnn {

/// Stride, zero padding (on both sides), dilation and groups of a convolution:
/// `Conv2dParams{.stride = 2, .padding = 1}`.
struct Conv2dParams {
  Size2 stride = 1;
  Size2 padding = 0;
  Size2 dilation = 1;
  int64_t groups = 1;
};

/// out [N, O, OH, OW] = x [N, C, H, W] ⋆ weight [O, C / groups, KH, KW] + bias [O], with
/// OH = (H + 2 padding.h - dilation.h (KH - 1) - 1) / stride.h + 1 (and the same for W).
/// bias may be undefined. x, weight and bias share one float dtype (f32 or f64) and device.
/// Differentiable w.r.t. x, weight and bias.
Tensor conv2d(const Tensor& x, const Tensor& weight, const Tensor& bias = Tensor(),
              const Conv2dParams& params = {});

/// The shape conv2d gives for an input of shape x and a weight of shape weight (throws like
/// conv2d when they do not fit).
Shape conv2d_output_shape(const Shape& x, const Shape& weight, const Conv2dParams& params = {});

}  // namespace exadnn
