// Small tensor helpers the engine needs, built on core and the dispatch table only (the autograd
// layer sits below ops). Internal.
#pragma once

#include "exadnn/core/tensor.h"

namespace exadnn::autograd::detail {

/// Uninitialised dense tensor.
Tensor new_tensor(const Shape& shape, DType dtype, Device device);
/// Dense tensor with every element `value`.
Tensor filled(const Shape& shape, DType dtype, Device device, double value);
/// Dense copy of t converted to `dtype`.
Tensor dense_copy(const Tensor& t, DType dtype);
/// a + b for equal shapes and dtypes, into a new tensor.
Tensor sum_of(const Tensor& a, const Tensor& b);

}  // namespace exadnn::autograd::detail
