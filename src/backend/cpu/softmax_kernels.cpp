// Softmax and log-softmax over the middle axis of x viewed as [outer, axis, inner] (f32, f64),
// forward and backward, each in one pass per row after the reductions.
#include <omp.h>

#include <cmath>

#include "exadnn/backend/nn_kernels.h"
#include "loops.h"
#include "row_log_sum_exp.h"

namespace exadnn::cpu {

namespace {

bool parallel_rows(const SoftmaxGeometry& g) {
  return g.outer * g.axis * g.inner >= kParallelGrain && omp_get_max_threads() > 1;
}

// One row of `axis` elements with stride `inner`.
template <class T>
void softmax_row(const T* x, T* out, int64_t n, int64_t stride, bool log) {
  const T mx = row_shift(x, n, stride);
  if (log) {
    const T log_sum = row_log_sum_exp(x, n, stride, mx);
    for (int64_t i = 0; i < n; ++i) out[i * stride] = (x[i * stride] - mx) - log_sum;
  } else {
    double sum = 0.0;
    for (int64_t i = 0; i < n; ++i) {
      const T e = std::exp(x[i * stride] - mx);
      out[i * stride] = e;
      sum += e;
    }
    const T inv = static_cast<T>(1.0 / sum);
    for (int64_t i = 0; i < n; ++i) out[i * stride] *= inv;
  }
}

template <class T>
void softmax_forward(const SoftmaxGeometry& g, const Tensor& out, const Tensor& x) {
  const T* xp = static_cast<const T*>(x.data_ptr());
  T* op = static_cast<T*>(out.data_ptr());
  const int64_t rows = g.outer * g.inner;
#pragma omp parallel for if (parallel_rows(g)) schedule(static)
  for (int64_t r = 0; r < rows; ++r) {
    const int64_t o = r / g.inner, i = r % g.inner, base = o * g.axis * g.inner + i;
    softmax_row(xp + base, op + base, g.axis, g.inner, g.log);
  }
}

template <class T>
void softmax_backward(const SoftmaxGeometry& g, const Tensor& grad_x, const Tensor& grad_out,
                      const Tensor& out) {
  const T* gy = static_cast<const T*>(grad_out.data_ptr());
  const T* y = static_cast<const T*>(out.data_ptr());
  T* gx = static_cast<T*>(grad_x.data_ptr());
  const int64_t rows = g.outer * g.inner, n = g.axis, s = g.inner;
#pragma omp parallel for if (parallel_rows(g)) schedule(static)
  for (int64_t r = 0; r < rows; ++r) {
    const int64_t o = r / g.inner, i = r % g.inner, base = o * g.axis * g.inner + i;
    const T* d = gy + base;
    const T* v = y + base;
    T* q = gx + base;
    double acc = 0.0;
    if (g.log) {  // dx = g - exp(y) Σ g
      for (int64_t k = 0; k < n; ++k) acc += d[k * s];
      const T total = static_cast<T>(acc);
      for (int64_t k = 0; k < n; ++k) q[k * s] = d[k * s] - std::exp(v[k * s]) * total;
    } else {  // dx = y (g - Σ g y)
      for (int64_t k = 0; k < n; ++k) acc += static_cast<double>(d[k * s]) * v[k * s];
      const T dot = static_cast<T>(acc);
      for (int64_t k = 0; k < n; ++k) q[k * s] = v[k * s] * (d[k * s] - dot);
    }
  }
}

}  // namespace

void register_softmax_kernels(KernelRegistry& r) {
  put<SoftmaxForwardKernel>(r, OpId::softmax_forward, DType::f32, &softmax_forward<float>);
  put<SoftmaxForwardKernel>(r, OpId::softmax_forward, DType::f64, &softmax_forward<double>);
  put<SoftmaxBackwardKernel>(r, OpId::softmax_backward, DType::f32, &softmax_backward<float>);
  put<SoftmaxBackwardKernel>(r, OpId::softmax_backward, DType::f64, &softmax_backward<double>);
}

}  // namespace exadnn::cpu
