// Reductions over any set of axes. `axes` empty means all axes; negative axes count from the end.
// keepdim keeps reduced axes as size 1.
#pragma once

#include <cstdint>
#include <vector>

#include "exadnn/core/tensor.h"

namespace exadnn {

using Axes = std::vector<int64_t>;

Tensor sum(const Tensor& x, const Axes& axes = {}, bool keepdim = false);
/// Mean; integer inputs give f32.
Tensor mean(const Tensor& x, const Axes& axes = {}, bool keepdim = false);
/// Largest value over axes (gradient shared equally among tied maxima).
Tensor max(const Tensor& x, const Axes& axes = {}, bool keepdim = false);
/// Smallest value over axes (gradient shared equally among tied minima).
Tensor min(const Tensor& x, const Axes& axes = {}, bool keepdim = false);
/// log(sum(exp(x))) computed stably.
Tensor logsumexp(const Tensor& x, const Axes& axes = {}, bool keepdim = false);
/// Index (i64) of the largest value along `axis` (first one on ties).
Tensor argmax(const Tensor& x, int64_t axis, bool keepdim = false);
/// Index (i64) of the largest element of the flattened tensor.
Tensor argmax(const Tensor& x);
/// Index (i64) of the smallest value along `axis` (first one on ties).
Tensor argmin(const Tensor& x, int64_t axis, bool keepdim = false);
Tensor argmin(const Tensor& x);

}  // namespace exadnn
