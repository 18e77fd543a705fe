// 2-D convolution over NCHW tensors (cross-correlation, like every deep-learning framework).
// On the CPU it runs through oneDNN or im2col + GEMM (see backend/conv_algorithm.h).
#pragma once

#include <cstdint>

#include "exadnn/backend/conv_algorithm.h"
#include "exadnn/core/memory_format.h"
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

/// max_pool2d(conv2d(x, weight, bias, params), pool_kernel, pool_stride, pool_padding) as one
/// graph node. On the CPU in f32 it is one oneDNN step that never writes the convolution's output
/// to a tensor (src/backend/cpu/onednn_conv_pool.cpp); elsewhere (other dtypes and devices,
/// autocast, ConvAlgorithm::im2col, empty tensors) it runs the two ops. x may be contiguous or
/// channels-last (read as it is; other layouts are copied first); `out_format` asks for the
/// result's memory format (the fused kernels honour it, the two-op fallback returns contiguous):
/// channels-last where the next op is another such convolution, which then reads it without a
/// reorder. The input's gradient has the input's format.
Tensor conv2d_max_pool2d(const Tensor& x, const Tensor& weight, const Tensor& bias,
                         const Conv2dParams& params, Size2 pool_kernel, Size2 pool_stride,
                         Size2 pool_padding = 0,
                         MemoryFormat out_format = MemoryFormat::contiguous);

/// relu(conv2d_max_pool2d(...)) (= max_pool(relu(conv)), ReLU being monotone) as one graph node:
/// the ReLU is applied where the fused kernels write the pooled values, and its gradient mask where
/// they read them, so no pass of its own runs over the output. The same arguments and fallbacks as
/// conv2d_max_pool2d (the fallbacks add a ReLU).
Tensor conv2d_relu_max_pool2d(const Tensor& x, const Tensor& weight, const Tensor& bias,
                              const Conv2dParams& params, Size2 pool_kernel, Size2 pool_stride,
                              Size2 pool_padding = 0,
                              MemoryFormat out_format = MemoryFormat::contiguous);

/// The shape conv2d gives for an input of shape x and a weight of shape weight (throws like
/// conv2d when they do not fit).
Shape conv2d_output_shape(const Shape& x, const Shape& weight, const Conv2dParams& params = {});

}  // namespace exadnn
