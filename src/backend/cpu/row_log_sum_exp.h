// The shift and the log Σ exp of one row, shared by the softmax and the cross-entropy kernels
// (internal to the CPU backend).
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>

namespace exadnn::cpu {

/// The row's maximum, the shift that keeps exp(x - shift) ≤ 1, over n elements `stride` apart.
/// NaN is skipped here (std::max keeps the first operand) and reaches the result through the
/// sum. An all -inf row shifts by 0 (exp(-inf - 0) = 0, log Σ = -inf); a +inf maximum is kept.
template <class T>
T row_shift(const T* x, int64_t n, int64_t stride) {
  T mx = -std::numeric_limits<T>::infinity();
  for (int64_t i = 0; i < n; ++i) mx = std::max(mx, x[i * stride]);
  return std::isinf(mx) && mx < 0 ? T(0) : mx;
}

/// log Σ exp(x - shift) over the row, the sum accumulated in double.
template <class T>
T row_log_sum_exp(const T* x, int64_t n, int64_t stride, T shift) {
  double sum = 0.0;
  for (int64_t i = 0; i < n; ++i) sum += std::exp(x[i * stride] - shift);
  return static_cast<T>(std::log(sum));
}

}  // namespace exadnn::cpu
