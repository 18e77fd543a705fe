// 2-D pooling over NCHW tensors ([C, H, W] is taken as a batch of one). On the CPU it runs
// through oneDNN or exadnn's own loops (see backend/conv_algorithm.h).
#pragma once

#include <cstdint>

#include "exadnn/core/tensor.h"
#include "exadnn/ops/size2.h"

namespace exadnn {

/// Maximum over kernel windows moved by `stride`, over x padded by `padding` (padding never
/// wins; it must be at most half the kernel). OH = (H + 2 padding.h - kernel.h) / stride.h + 1.
/// Differentiable: the gradient goes to the (first) maximum of each window.
Tensor max_pool2d(const Tensor& x, Size2 kernel, Size2 stride, Size2 padding = 0);
/// max_pool2d with stride = kernel.
Tensor max_pool2d(const Tensor& x, Size2 kernel);

/// Mean over kernel windows. count_include_pad: divide by kernel.h * kernel.w (padding counts as
/// zeros); otherwise by the number of real elements in the window. Differentiable.
Tensor avg_pool2d(const Tensor& x, Size2 kernel, Size2 stride, Size2 padding = 0,
                  bool count_include_pad = true);
/// avg_pool2d with stride = kernel.
Tensor avg_pool2d(const Tensor& x, Size2 kernel);

/// Mean over out_h x out_w windows that tile x: window (i, j) covers rows
/// [floor(i H / out_h), ceil((i + 1) H / out_h)) and likewise columns. adaptive_avg_pool2d(x, 1,
/// 1) is global average pooling. Differentiable.
Tensor adaptive_avg_pool2d(const Tensor& x, int64_t out_h, int64_t out_w);

}  // namespace exadnn
