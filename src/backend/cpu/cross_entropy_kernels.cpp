// Softmax cross-entropy against class indices (f32, f64): logits [n, c], target [n] (i64). The
// forward is one pass per row for the maximum and one for Σ exp; the backward one pass, from the
// saved logsumexp. Rows run in parallel when the whole problem is large (a [128, 10] batch of
// logits runs on the calling thread: waking a team would cost more than the loop).
#include <omp.h>

#include <cmath>

#include "exadnn/backend/nn_kernels.h"
#include "exadnn/core/error.h"
#include "loops.h"
#include "row_log_sum_exp.h"

namespace exadnn::cpu {

namespace {

bool parallel_rows(int64_t n, int64_t c) {
  return n * c >= kParallelGrain && omp_get_max_threads() > 1;
}

// Every target in [0, c), checked on the calling thread (an exception may not leave a parallel
// region).
void check_targets(const int64_t* target, int64_t n, int64_t c) {
  for (int64_t i = 0; i < n; ++i)
    EXADNN_CHECK(target[i] >= 0 && target[i] < c, "cross_entropy", "class index ", target[i],
                 " of example ", i, " is outside [0, ", c, ")");
}

template <class T>
void cross_entropy_forward(const Tensor& loss, const Tensor& lse, const Tensor& logits,
                           const Tensor& target) {
  const int64_t n = logits.size(0), c = logits.size(1);
  const T* x = static_cast<const T*>(logits.data_ptr());
  const auto* t = static_cast<const int64_t*>(target.data_ptr());
  T* out = static_cast<T*>(loss.data_ptr());
  T* out_lse = static_cast<T*>(lse.data_ptr());
  check_targets(t, n, c);
#pragma omp parallel for if (parallel_rows(n, c)) schedule(static)
  for (int64_t i = 0; i < n; ++i) {
    const T* row = x + i * c;
    const T mx = row_shift(row, c, 1);  // an all -inf row: log Σ = -inf, the loss NaN
    const T log_sum = row_log_sum_exp(row, c, 1, mx);
    out[i] = log_sum - (row[t[i]] - mx);  // -log_softmax at the target, without mx's rounding
    out_lse[i] = mx + log_sum;
  }
}

template <class T>
void cross_entropy_backward(const Tensor& grad_logits, const Tensor& grad_loss,
                            const Tensor& logits, const Tensor& lse, const Tensor& target) {
  const int64_t n = logits.size(0), c = logits.size(1);
  const T* x = static_cast<const T*>(logits.data_ptr());
  const T* g = static_cast<const T*>(grad_loss.data_ptr());
  const T* l = static_cast<const T*>(lse.data_ptr());
  const auto* t = static_cast<const int64_t*>(target.data_ptr());
  T* gx = static_cast<T*>(grad_logits.data_ptr());
#pragma omp parallel for if (parallel_rows(n, c)) schedule(static)
  for (int64_t i = 0; i < n; ++i) {
    const T* row = x + i * c;
    T* grad_row = gx + i * c;
    for (int64_t k = 0; k < c; ++k) grad_row[k] = g[i] * std::exp(row[k] - l[i]);
    grad_row[t[i]] -= g[i];
  }
}

}  // namespace

void register_cross_entropy_kernels(KernelRegistry& r) {
  put<CrossEntropyForwardKernel>(r, OpId::cross_entropy_forward, DType::f32,
                                 &cross_entropy_forward<float>);
  put<CrossEntropyForwardKernel>(r, OpId::cross_entropy_forward, DType::f64,
                                 &cross_entropy_forward<double>);
  put<CrossEntropyBackwardKernel>(r, OpId::cross_entropy_backward, DType::f32,
                                  &cross_entropy_backward<float>);
  put<CrossEntropyBackwardKernel>(r, OpId::cross_entropy_backward, DType::f64,
                                  &cross_entropy_backward<double>);
}

}  // namespace exadnn::cpu
