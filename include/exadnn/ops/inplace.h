// In-place updates for optimizers and gradient accumulation. Not recorded in the graph: call them
// on leaves or under NoGradGuard.
#pragma once

#include "exadnn/core/tensor.h"

namespace exadnn {

/// dst = src (broadcast and converted to dst's dtype); dst may be a strided view.
void copy_(const Tensor& dst, const Tensor& src);
/// Every element of dst = value.
void fill_(const Tensor& dst, double value);
/// dst += alpha * src (src broadcast to dst's shape).
void add_(const Tensor& dst, const Tensor& src, double alpha = 1.0);
/// dst *= value.
void mul_(const Tensor& dst, double value);
/// dst = value * src (src broadcast and converted to dst's dtype): a copy and a scale in one pass.
void scaled_copy_(const Tensor& dst, const Tensor& src, double value);

}  // namespace exadnn
