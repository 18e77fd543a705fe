// Batch normalisation by direct loops per channel (f32 and f64), sums in f64: the default f32
// path (channels in parallel, no barrier inside a channel; oneDNN's plain-layout kernels ran
// slower on ResNet-18's shapes, docs/performance.md "Batch norm") and the f64 path. The loops
// over one channel are built for AVX-512, AVX2 and the baseline (GCC's target_clones picks one
// when the library loads): their scalar f64 sums were bound by the add latency, not by memory
// (two threads ran twice as fast as one), and the library's baseline target has no AVX.
#include <omp.h>

#include <algorithm>
#include <cmath>

#include "loops.h"
#include "nn_impl.h"
#include "vector_clones.h"

namespace exadnn::cpu::native {

namespace {

// Calls f(channel) for every channel, in parallel when the tensor is large.
template <class F>
void for_channels(const BatchNormGeometry& g, F f) {
  const bool par = g.n * g.c * g.spatial >= kParallelGrain && omp_get_max_threads() > 1;
#pragma omp parallel for if (par) schedule(static)
  for (int64_t ch = 0; ch < g.c; ++ch) f(ch);
}

template <class T>
const T* ptr_or_null(const Tensor& t) {
  return t.defined() ? static_cast<const T*>(t.data_ptr()) : nullptr;
}

// One channel of an [n, c, spatial] tensor: n planes of `plane` values, `stride` apart.
struct Planes {
  int64_t n, plane, stride;
};

// Σ (x - shift) and Σ (x - shift)² over a channel, in f64. Shifting by one of the channel's own
// values keeps the one-pass variance q/N - (s/N)² free of cancellation when |mean| >> std.
template <class T>
EXADNN_VECTOR_CLONES void shifted_sums(const T* x, Planes c, double shift, double* sum,
                                       double* sum_sq) {
  double s = 0.0, q = 0.0;
#pragma omp simd reduction(+ : s, q) collapse(2)
  for (int64_t n = 0; n < c.n; ++n) {
    for (int64_t i = 0; i < c.plane; ++i) {
      const double d = static_cast<double>(x[n * c.stride + i]) - shift;
      s += d;
      q += d * d;
    }
  }
  *sum = s;
  *sum_sq = q;
}

// A channel's f64 mean as the sum of two T values: x - hi - lo keeps the mean's f64 precision in
// T arithmetic (a channel at 1e4 with spread 1e-2 would lose 5 % of its spread to an f32 mean).
template <class T>
struct SplitMean {
  T hi, lo;
  explicit SplitMean(double m) : hi(static_cast<T>(m)), lo(static_cast<T>(m - hi)) {}
};

// y = (x - mean) a + b over a channel, in T; max(0, ·) of it when kRelu.
template <bool kRelu, class T>
EXADNN_VECTOR_CLONES void normalise(const T* x, T* y, Planes c, SplitMean<T> mean, T a, T b) {
#pragma omp simd collapse(2)
  for (int64_t n = 0; n < c.n; ++n)
    for (int64_t i = 0; i < c.plane; ++i) {
      const T v = (x[n * c.stride + i] - mean.hi - mean.lo) * a + b;
      y[n * c.stride + i] = kRelu ? (v > T(0) ? v : T(0)) : v;
    }
}

// Σ g, Σ g (x - mean) and Σ (x - mean) over a channel, in f64. The last recovers the batch mean
// to f64 precision from the one the forward stored in T (the same x, the same pass).
template <class T>
EXADNN_VECTOR_CLONES void gradient_sums(const T* x, const T* gy, Planes c, double mean,
                                        double* sum_g, double* sum_gx, double* sum_x) {
  double s = 0.0, q = 0.0, r = 0.0;
#pragma omp simd reduction(+ : s, q, r) collapse(2)
  for (int64_t n = 0; n < c.n; ++n) {
    for (int64_t i = 0; i < c.plane; ++i) {
      const int64_t k = n * c.stride + i;
      const double gi = static_cast<double>(gy[k]), xi = static_cast<double>(x[k]) - mean;
      s += gi;
      q += gi * xi;
      r += xi;
    }
  }
  *sum_g = s;
  *sum_gx = q;
  *sum_x = r;
}

// dx = a g + b (x - mean) + c over a channel, in T (gx may be gy: in place).
template <class T>
EXADNN_VECTOR_CLONES void input_gradient(const T* x, const T* gy, T* gx, Planes c,
                                         SplitMean<T> mean, T a, T b, T shift) {
#pragma omp simd collapse(2)
  for (int64_t n = 0; n < c.n; ++n) {
    for (int64_t i = 0; i < c.plane; ++i) {
      const int64_t k = n * c.stride + i;
      gx[k] = a * gy[k] + b * (x[k] - mean.hi - mean.lo) + shift;
    }
  }
}

// out = g where the ReLU's output relu_y > 0, else 0, over a channel: the gradient reaching
// batch norm when a ReLU followed it. A loop of its own: with the select inside the sums' loop
// GCC 12 vectorises neither (4x slower), and the channel is still in cache for the next loops.
template <class T>
EXADNN_VECTOR_CLONES void relu_mask(const T* gy, const T* relu_y, T* out, Planes c) {
#pragma omp simd collapse(2)
  for (int64_t n = 0; n < c.n; ++n) {
    for (int64_t i = 0; i < c.plane; ++i) {
      const int64_t k = n * c.stride + i;
      out[k] = relu_y[k] > T(0) ? gy[k] : T(0);
    }
  }
}

}  // namespace

template <class T>
void batch_norm_forward(const BatchNormGeometry& g, const Tensor& y, const Tensor& x,
                        const Tensor& scale, const Tensor& shift, const Tensor& mean,
                        const Tensor& var, bool relu) {
  const T* xp = static_cast<const T*>(x.data_ptr());
  T* yp = static_cast<T*>(y.data_ptr());
  const T* sc = ptr_or_null<T>(scale);
  const T* sh = ptr_or_null<T>(shift);
  T* mp = static_cast<T*>(mean.data_ptr());
  T* vp = static_cast<T*>(var.data_ptr());
  const Planes planes{g.n, g.spatial, g.c * g.spatial};
  const double count = static_cast<double>(g.n * g.spatial);
  for_channels(g, [&](int64_t ch) {
    const T* xc = xp + ch * g.spatial;
    double m, v;
    if (g.training) {
      double s = 0.0, q = 0.0;
      const double pivot = count > 0 ? static_cast<double>(xc[0]) : 0.0;
      shifted_sums(xc, planes, pivot, &s, &q);
      const double d = count > 0 ? s / count : 0.0;
      m = pivot + d;
      v = count > 0 ? std::max(q / count - d * d, 0.0) : 0.0;
      mp[ch] = static_cast<T>(m);
      vp[ch] = static_cast<T>(v);
    } else {
      m = mp[ch];
      v = vp[ch];
    }
    const double a = (sc ? sc[ch] : 1.0) / std::sqrt(v + g.eps);
    const auto run = relu ? &normalise<true, T> : &normalise<false, T>;
    run(xc, yp + ch * g.spatial, planes, SplitMean<T>(m), static_cast<T>(a),
        static_cast<T>(sh ? sh[ch] : 0.0));
  });
}

template <class T>
void batch_norm_backward(const BatchNormGeometry& g, const Tensor& grad_x, const Tensor& grad_scale,
                         const Tensor& grad_shift, const Tensor& grad_y, const Tensor& x,
                         const Tensor& scale, const Tensor& mean, const Tensor& var,
                         const Tensor& relu_output) {
  const T* xp = static_cast<const T*>(x.data_ptr());
  const T* gy = static_cast<const T*>(grad_y.data_ptr());
  const T* ry = ptr_or_null<T>(relu_output);
  T* gx = static_cast<T*>(grad_x.data_ptr());
  const T* sc = ptr_or_null<T>(scale);
  const T* mp = static_cast<const T*>(mean.data_ptr());
  const T* vp = static_cast<const T*>(var.data_ptr());
  T* gsc = grad_scale.defined() ? static_cast<T*>(grad_scale.data_ptr()) : nullptr;
  T* gsh = grad_shift.defined() ? static_cast<T*>(grad_shift.data_ptr()) : nullptr;
  const Planes planes{g.n, g.spatial, g.c * g.spatial};
  const double count = static_cast<double>(g.n * g.spatial);
  for_channels(g, [&](int64_t ch) {
    const int64_t offset = ch * g.spatial;
    const double invstd = 1.0 / std::sqrt(static_cast<double>(vp[ch]) + g.eps);
    double m = mp[ch], sum_g = 0.0, sum_gxm = 0.0, sum_xm = 0.0;  // Σ g, Σ g (x - m), Σ (x - m)
    const T* g_in = gy + offset;  // the gradient reaching batch norm: masked into gx first
    if (ry) {
      relu_mask(g_in, ry + offset, gx + offset, planes);
      g_in = gx + offset;
    }
    gradient_sums(xp + offset, g_in, planes, m, &sum_g, &sum_gxm, &sum_xm);
    if (g.training && count > 0) {  // the batch mean in f64, not as stored in T
      const double shift = sum_xm / count;
      m += shift;
      sum_gxm -= shift * sum_g;
    }
    const double sum_gx = sum_gxm * invstd;  // Σ g x̂
    if (gsc) gsc[ch] = static_cast<T>(sum_gx);
    if (gsh) gsh[ch] = static_cast<T>(sum_g);
    const double a = (sc ? sc[ch] : 1.0) * invstd;
    // training: dx = a (g - Σg/count - x̂ Σ(g x̂)/count); otherwise dx = a g
    const double mean_g = g.training && count > 0 ? sum_g / count : 0.0;
    const double mean_gx = g.training && count > 0 ? sum_gx / count : 0.0;
    input_gradient(xp + offset, g_in, gx + offset, planes, SplitMean<T>(m), static_cast<T>(a),
                   static_cast<T>(-a * invstd * mean_gx), static_cast<T>(-a * mean_g));
  });
}

#define EXADNN_INSTANTIATE(T)                                                                      \
  template void batch_norm_forward<T>(const BatchNormGeometry&, const Tensor&, const Tensor&,      \
                                      const Tensor&, const Tensor&, const Tensor&, const Tensor&,  \
                                      bool);                                                       \
  template void batch_norm_backward<T>(const BatchNormGeometry&, const Tensor&, const Tensor&,     \
                                       const Tensor&, const Tensor&, const Tensor&, const Tensor&, \
                                       const Tensor&, const Tensor&, const Tensor&);
EXADNN_INSTANTIATE(float)
EXADNN_INSTANTIATE(double)
#undef EXADNN_INSTANTIATE

}  // namespace exadnn::cpu::native
