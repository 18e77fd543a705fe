// Batch normalisation by direct loops per channel (f32 and f64), sums in f64: the default f32
// path (channels in parallel, no barrier inside a channel; oneDNN's plain-layout kernels ran
// slower on ResNet-18's shapes, docs/performance.md "Batch norm") and the f64 path. (f32 runs
// summed in f32 and vectorised were tried: no faster, the loops are memory-bound.)
#include <omp.h>

#include <cmath>

#include "loops.h"
#include "nn_impl.h"

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

}  // namespace

template <class T>
void batch_norm_forward(const BatchNormGeometry& g, const Tensor& y, const Tensor& x,
                        const Tensor& scale, const Tensor& shift, const Tensor& mean,
                        const Tensor& var) {
  const T* xp = static_cast<const T*>(x.data_ptr());
  T* yp = static_cast<T*>(y.data_ptr());
  const T* sc = ptr_or_null<T>(scale);
  const T* sh = ptr_or_null<T>(shift);
  T* mp = static_cast<T*>(mean.data_ptr());
  T* vp = static_cast<T*>(var.data_ptr());
  const int64_t plane = g.spatial, stride = g.c * g.spatial;
  const double count = static_cast<double>(g.n * g.spatial);
  for_channels(g, [&](int64_t ch) {
    double m, v;
    if (g.training) {
      double s = 0.0;
      for (int64_t n = 0; n < g.n; ++n) {
        const T* p = xp + n * stride + ch * plane;
        for (int64_t i = 0; i < plane; ++i) s += p[i];
      }
      m = count > 0 ? s / count : 0.0;
      double q = 0.0;
      for (int64_t n = 0; n < g.n; ++n) {
        const T* p = xp + n * stride + ch * plane;
        for (int64_t i = 0; i < plane; ++i) q += (p[i] - m) * (p[i] - m);
      }
      v = count > 0 ? q / count : 0.0;
      mp[ch] = static_cast<T>(m);
      vp[ch] = static_cast<T>(v);
    } else {
      m = mp[ch];
      v = vp[ch];
    }
    const double a = (sc ? sc[ch] : 1.0) / std::sqrt(v + g.eps);
    const double b = (sh ? sh[ch] : 0.0) - m * a;
    for (int64_t n = 0; n < g.n; ++n) {
      const T* p = xp + n * stride + ch * plane;
      T* q = yp + n * stride + ch * plane;
      for (int64_t i = 0; i < plane; ++i) q[i] = static_cast<T>(p[i] * a + b);
    }
  });
}

template <class T>
void batch_norm_backward(const BatchNormGeometry& g, const Tensor& grad_x, const Tensor& grad_scale,
                         const Tensor& grad_shift, const Tensor& grad_y, const Tensor& x,
                         const Tensor& scale, const Tensor& mean, const Tensor& var) {
  const T* xp = static_cast<const T*>(x.data_ptr());
  const T* gy = static_cast<const T*>(grad_y.data_ptr());
  T* gx = static_cast<T*>(grad_x.data_ptr());
  const T* sc = ptr_or_null<T>(scale);
  const T* mp = static_cast<const T*>(mean.data_ptr());
  const T* vp = static_cast<const T*>(var.data_ptr());
  T* gsc = grad_scale.defined() ? static_cast<T*>(grad_scale.data_ptr()) : nullptr;
  T* gsh = grad_shift.defined() ? static_cast<T*>(grad_shift.data_ptr()) : nullptr;
  const int64_t plane = g.spatial, stride = g.c * g.spatial;
  const double count = static_cast<double>(g.n * g.spatial);
  for_channels(g, [&](int64_t ch) {
    const double m = mp[ch], invstd = 1.0 / std::sqrt(static_cast<double>(vp[ch]) + g.eps);
    double sum_g = 0.0, sum_gx = 0.0;  // Σ g and Σ g·x̂
    for (int64_t n = 0; n < g.n; ++n) {
      const T* p = xp + n * stride + ch * plane;
      const T* d = gy + n * stride + ch * plane;
      for (int64_t i = 0; i < plane; ++i) {
        sum_g += d[i];
        sum_gx += d[i] * (p[i] - m) * invstd;
      }
    }
    if (gsc) gsc[ch] = static_cast<T>(sum_gx);
    if (gsh) gsh[ch] = static_cast<T>(sum_g);
    const double a = (sc ? sc[ch] : 1.0) * invstd;
    // training: dx = a (g - Σg/count - x̂ Σ(g x̂)/count); otherwise dx = a g
    const double mean_g = g.training && count > 0 ? sum_g / count : 0.0;
    const double mean_gx = g.training && count > 0 ? sum_gx / count : 0.0;
    for (int64_t n = 0; n < g.n; ++n) {
      const T* p = xp + n * stride + ch * plane;
      const T* d = gy + n * stride + ch * plane;
      T* q = gx + n * stride + ch * plane;
      for (int64_t i = 0; i < plane; ++i)
        q[i] = static_cast<T>(a * (d[i] - mean_g - (p[i] - m) * invstd * mean_gx));
    }
  });
}

#define EXADNN_INSTANTIATE(T)                                                                      \
  template void batch_norm_forward<T>(const BatchNormGeometry&, const Tensor&, const Tensor&,      \
                                      const Tensor&, const Tensor&, const Tensor&, const Tensor&); \
  template void batch_norm_backward<T>(const BatchNormGeometry&, const Tensor&, const Tensor&,     \
                                       const Tensor&, const Tensor&, const Tensor&, const Tensor&, \
                                       const Tensor&, const Tensor&);
EXADNN_INSTANTIATE(float)
EXADNN_INSTANTIATE(double)
#undef EXADNN_INSTANTIATE

}  // namespace exadnn::cpu::native
