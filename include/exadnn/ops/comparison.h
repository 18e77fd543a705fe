// Comparisons (bool results, not differentiable) and where (differentiable in a and b).
#pragma once

#include "exadnn/core/tensor.h"

namespace exadnn {

Tensor eq(const Tensor& a, const Tensor& b);
Tensor ne(const Tensor& a, const Tensor& b);
Tensor lt(const Tensor& a, const Tensor& b);
Tensor le(const Tensor& a, const Tensor& b);
Tensor gt(const Tensor& a, const Tensor& b);
Tensor ge(const Tensor& a, const Tensor& b);
/// cond ? a : b, elementwise with broadcasting; cond must be bool.
Tensor where(const Tensor& cond, const Tensor& a, const Tensor& b);

}  // namespace exadnn
