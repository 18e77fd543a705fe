// Helpers shared by the op families (internal to src/ops).
#pragma once

#include <vector>

#include "exadnn/autograd/node.h"
#include "exadnn/backend/dispatch.h"
#include "exadnn/backend/kernels.h"
#include "exadnn/core/memory_format.h"
#include "exadnn/core/tensor.h"
#include "exadnn/ops/factories.h"

namespace exadnn::ops {

/// Throws unless t is defined.
void check_defined(const Tensor& t, const char* op, const char* what = "input");
/// Throws unless a and b live on the same device.
void check_same_device(const Tensor& a, const Tensor& b, const char* op);
/// NumPy broadcast of two shapes; throws naming `op` and both shapes.
Shape broadcast_shapes(const Shape& a, const Shape& b, const char* op);
/// Stride-0 view of t broadcast to `shape` (no autograd; shape must be broadcast-compatible).
Tensor broadcast_view(const Tensor& t, const Shape& shape);
/// Sums a gradient over broadcast axes so it has `shape` again (differentiable).
Tensor sum_to(const Tensor& grad, const Shape& shape);
/// Dense uninitialised tensor with t's device.
Tensor empty_on(const Shape& shape, DType dtype, Device device);
/// Uninitialised [N, C, H, W] tensor laid out channels-last (packed NHWC).
Tensor empty_channels_last(const Shape& nchw, DType dtype, Device device);
/// Uninitialised tensor with the shape, dtype, device and strides of a dense tensor t.
Tensor empty_with_layout_of(const Tensor& t);
/// The elements of a dense tensor t as a 1-D view, in memory order (no copy).
Tensor flat_view(const Tensor& t);
/// t (4-D) in `format`: t itself when it is already, else a copy (no autograd).
Tensor in_format(const Tensor& t, MemoryFormat format);
/// Converts t to dtype without recording (new dense tensor, or t itself if already dtype).
Tensor cast_raw(const Tensor& t, DType dtype);
/// The float dtype an integer input is computed in (f32), or t's own dtype.
DType floating_dtype(DType t);
/// ReLU's gradient: dy where `sign_source` > 0, else 0, in one pass (relu_backward kernel).
/// sign_source is the ReLU's floating input, or its output (positive exactly where the input is);
/// dy is broadcast to its shape. A channels-last sign_source with a dy of the same strides gives a
/// channels-last gradient.
Tensor relu_grad(const Tensor& dy, const Tensor& sign_source);
/// Calls record() with the op's inputs (just a shorter name inside op files).
using autograd::record;

}  // namespace exadnn::ops
