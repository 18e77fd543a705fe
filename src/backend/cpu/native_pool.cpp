// Pooling by direct loops over each (sample, channel) plane (f32, f64, f16, bf16): the fallback
// to oneDNN, the f64 and 16-bit paths, and adaptive pooling whose windows do not tile evenly.
// 16-bit values are compared and summed in f32 (Acc) and rounded once when stored.
#include <omp.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <type_traits>
#include <vector>

#include "exadnn/core/half.h"
#include "exadnn/core/half_convert.h"
#include "loops.h"
#include "nn_impl.h"

namespace exadnn::cpu::native {

namespace {

// The arithmetic type of storage type T: f64 for f64, else f32.
template <class T>
using Acc = std::conditional_t<std::is_same_v<T, double>, double, float>;

// Rows [begin, end) of input that output row i pools over (before clipping to the input for
// the fixed-window kinds).
struct Window {
  int64_t begin, end;
};

Window window(const Pool2dGeometry& g, bool rows, int64_t i) {
  const int64_t in = rows ? g.h : g.w, out = rows ? g.oh : g.ow;
  if (g.kind == PoolKind::adaptive_avg) return {(i * in) / out, ((i + 1) * in + out - 1) / out};
  const int64_t stride = rows ? g.stride_h : g.stride_w, pad = rows ? g.pad_h : g.pad_w;
  const int64_t k = rows ? g.kh : g.kw;
  return {i * stride - pad, i * stride - pad + k};
}

bool parallel_planes(const Pool2dGeometry& g) {
  return g.n * g.c * std::max(g.h * g.w, g.oh * g.ow) >= kParallelGrain &&
         omp_get_max_threads() > 1;
}

// Input ranges of every output row and column, clipped to the input, and the average divisors.
struct Windows {
  std::vector<Window> rows, cols;
  std::vector<double> row_div, col_div;  // divisor = row_div[oy] * col_div[ox]
  explicit Windows(const Pool2dGeometry& g) {
    for (int64_t oy = 0; oy < g.oh; ++oy) rows.push_back(window(g, true, oy));
    for (int64_t ox = 0; ox < g.ow; ++ox) cols.push_back(window(g, false, ox));
    for (const Window& r : rows) row_div.push_back(extent(g, r, g.h, g.pad_h));
    for (const Window& c : cols) col_div.push_back(extent(g, c, g.w, g.pad_w));
    for (Window& r : rows) r = {std::max<int64_t>(r.begin, 0), std::min(r.end, g.h)};
    for (Window& c : cols) c = {std::max<int64_t>(c.begin, 0), std::min(c.end, g.w)};
  }
  // Length of a window for the divisor: clipped to the padded input (count_include_pad, like
  // PyTorch) or to the input.
  static double extent(const Pool2dGeometry& g, Window w, int64_t in, int64_t pad) {
    if (g.kind == PoolKind::avg_include_pad)
      return static_cast<double>(std::min(w.end, in + pad) - w.begin);
    const int64_t n = std::min(w.end, in) - std::max<int64_t>(w.begin, 0);
    return static_cast<double>(std::max<int64_t>(n, 1));
  }
};

// 2x2 windows, stride 2, no padding: the CNN's pooling, without per-window bookkeeping.
template <class T>
void max_pool_2x2(const Pool2dGeometry& g, const T* src, T* dst, int32_t* ws) {
  for (int64_t oy = 0; oy < g.oh; ++oy) {
    const T* r0 = src + 2 * oy * g.w;
    const T* r1 = r0 + g.w;
    T* d = dst + oy * g.ow;
    const int32_t base = static_cast<int32_t>(2 * oy * g.w);
    for (int64_t ox = 0; ox < g.ow; ++ox) {
      const Acc<T> a = r0[2 * ox], b = r0[2 * ox + 1], c = r1[2 * ox], e = r1[2 * ox + 1];
      // first maximum wins; a NaN wins (and is kept) like PyTorch
      Acc<T> m = a;
      int32_t at = 0;
      if (b > m || (std::isnan(b) && !std::isnan(m))) m = b, at = 1;
      if (c > m || (std::isnan(c) && !std::isnan(m))) m = c, at = 2;
      if (e > m || (std::isnan(e) && !std::isnan(m))) m = e, at = 3;
      d[ox] = static_cast<T>(m);
      if (ws) ws[oy * g.ow + ox] = base + static_cast<int32_t>(2 * ox + (at & 1) + (at >> 1) * g.w);
    }
  }
}

// Where one plane of an input gradient is summed, zeroed: the plane itself for f32/f64, a
// per-thread f32 plane for 16-bit types (rounded into the plane once, by store()).
template <class T>
Acc<T>* accumulator(T* plane, int64_t hw) {
  if constexpr (std::is_same_v<T, Acc<T>>) {
    std::fill(plane, plane + hw, T(0));
    return plane;
  } else {
    thread_local std::vector<float> sums;
    sums.assign(static_cast<size_t>(hw), 0.0f);
    return sums.data();
  }
}

template <class T>
void store(const Acc<T>* sums, T* plane, int64_t hw) {
  if constexpr (!std::is_same_v<T, Acc<T>>) convert(sums, plane, hw);
}

// max_pool_2x2 on one plane of any dtype: 16-bit planes are widened into per-thread f32 planes
// and the maxima rounded back (both exact), so the f32 loop, which the compiler vectorises, runs
// instead of a branchy 16-bit one (6x slower when measured).
template <class T>
void max_pool_2x2_plane(const Pool2dGeometry& g, const T* src, T* dst, int32_t* ws) {
  if constexpr (std::is_same_v<T, Acc<T>>) {
    max_pool_2x2(g, src, dst, ws);
  } else {
    thread_local std::vector<float> in, out;
    in.resize(static_cast<size_t>(g.h * g.w));
    out.resize(static_cast<size_t>(g.oh * g.ow));
    convert(src, in.data(), g.h * g.w);
    max_pool_2x2(g, in.data(), out.data(), ws);
    convert(out.data(), dst, g.oh * g.ow);
  }
}

}  // namespace

bool is_max_pool_2x2(const Pool2dGeometry& g) {
  return g.kind == PoolKind::max && g.kh == 2 && g.kw == 2 && g.stride_h == 2 && g.stride_w == 2 &&
         g.pad_h == 0 && g.pad_w == 0;
}

template <class T>
Tensor pool2d_forward(const Pool2dGeometry& g, const Tensor& out, const Tensor& x, bool training) {
  const bool is_max = g.kind == PoolKind::max;
  Tensor workspace;
  if (is_max && training) workspace = scratch_tensor({g.n, g.c, g.oh, g.ow}, DType::i32);
  int32_t* ws = workspace.defined() ? static_cast<int32_t*>(workspace.data_ptr()) : nullptr;
  const T* xp = static_cast<const T*>(x.data_ptr());
  T* op = static_cast<T*>(out.data_ptr());
  const int64_t hw = g.h * g.w, ohw = g.oh * g.ow;
  const bool two_by_two = is_max_pool_2x2(g);
  constexpr bool wide = std::is_same_v<T, float> || std::is_same_v<T, double>;
  const bool stem = wide && is_max_pool_3x3_s2(g);
  const Windows win(g);
#pragma omp parallel for if (parallel_planes(g)) schedule(static)
  for (int64_t plane = 0; plane < g.n * g.c; ++plane) {
    const T* src = xp + plane * hw;
    T* dst = op + plane * ohw;
    int32_t* wsp = ws ? ws + plane * ohw : nullptr;
    if (two_by_two) {
      max_pool_2x2_plane(g, src, dst, wsp);
      continue;
    }
    if constexpr (wide)
      if (stem) {
        max_pool_3x3_s2_plane(g, src, dst, wsp);
        continue;
      }
    for (int64_t oy = 0; oy < g.oh; ++oy) {
      const Window r = win.rows[oy];
      for (int64_t ox = 0; ox < g.ow; ++ox) {
        const Window c = win.cols[ox];
        if (is_max) {
          Acc<T> best = -std::numeric_limits<Acc<T>>::infinity();
          int64_t at = r.begin * g.w + c.begin;
          bool nan = false;
          for (int64_t y = r.begin; y < r.end && !nan; ++y)
            for (int64_t xx = c.begin; xx < c.end; ++xx) {
              const Acc<T> v = src[y * g.w + xx];
              if (v > best || std::isnan(v)) {  // the first NaN wins, like PyTorch
                best = v;
                at = y * g.w + xx;
                if (std::isnan(v)) {
                  nan = true;
                  break;
                }
              }
            }
          dst[oy * g.ow + ox] = static_cast<T>(best);
          if (wsp) wsp[oy * g.ow + ox] = static_cast<int32_t>(at);
        } else {
          double s = 0.0;
          for (int64_t y = r.begin; y < r.end; ++y)
            for (int64_t xx = c.begin; xx < c.end; ++xx)
              s += static_cast<Acc<T>>(src[y * g.w + xx]);
          dst[oy * g.ow + ox] =
              static_cast<T>(static_cast<Acc<T>>(s / (win.row_div[oy] * win.col_div[ox])));
        }
      }
    }
  }
  return workspace;
}

template <class T>
void pool2d_backward(const Pool2dGeometry& g, const Tensor& grad_x, const Tensor& grad_out,
                     const Tensor& workspace) {
  const bool is_max = g.kind == PoolKind::max;
  EXADNN_CHECK(!is_max || (workspace.defined() && workspace.dtype() == DType::i32), "max_pool2d",
               "backward needs the workspace of exadnn's forward pooling");
  const int32_t* ws = is_max ? static_cast<const int32_t*>(workspace.data_ptr()) : nullptr;
  const T* go = static_cast<const T*>(grad_out.data_ptr());
  T* gx = static_cast<T*>(grad_x.data_ptr());
  const int64_t hw = g.h * g.w, ohw = g.oh * g.ow;
  // 2x2 windows do not overlap: each input receives at most one gradient, copied as it is.
  const bool disjoint = is_max_pool_2x2(g);
  const Windows win(g);
#pragma omp parallel for if (parallel_planes(g)) schedule(static)
  for (int64_t plane = 0; plane < g.n * g.c; ++plane) {
    if (disjoint) {
      T* dst = gx + plane * hw;
      const int32_t* at = ws + plane * ohw;
      const T* src = go + plane * ohw;
      std::fill(dst, dst + hw, T(0.0f));
      for (int64_t i = 0; i < ohw; ++i) dst[at[i]] = src[i];
      continue;
    }
    Acc<T>* dst = accumulator(gx + plane * hw, hw);
    const T* src = go + plane * ohw;
    if (is_max) {
      const int32_t* at = ws + plane * ohw;
      for (int64_t i = 0; i < ohw; ++i) dst[at[i]] += static_cast<Acc<T>>(src[i]);
    } else {
      for (int64_t oy = 0; oy < g.oh; ++oy) {
        const Window r = win.rows[oy];
        for (int64_t ox = 0; ox < g.ow; ++ox) {
          const Window c = win.cols[ox];
          const auto share = static_cast<Acc<T>>(static_cast<Acc<T>>(src[oy * g.ow + ox]) /
                                                 (win.row_div[oy] * win.col_div[ox]));
          for (int64_t y = r.begin; y < r.end; ++y)
            for (int64_t xx = c.begin; xx < c.end; ++xx) dst[y * g.w + xx] += share;
        }
      }
    }
    store(dst, gx + plane * hw, hw);
  }
}

#define EXADNN_POOL_INSTANTIATE(T)                                                              \
  template Tensor pool2d_forward<T>(const Pool2dGeometry&, const Tensor&, const Tensor&, bool); \
  template void pool2d_backward<T>(const Pool2dGeometry&, const Tensor&, const Tensor&,         \
                                   const Tensor&);
EXADNN_POOL_INSTANTIATE(float)
EXADNN_POOL_INSTANTIATE(double)
EXADNN_POOL_INSTANTIATE(Half)
EXADNN_POOL_INSTANTIATE(BFloat16)
#undef EXADNN_POOL_INSTANTIATE

}  // namespace exadnn::cpu::native
