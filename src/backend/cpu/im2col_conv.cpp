// Convolution by im2col + GEMM (f32 and f64): the fallback to oneDNN, and the f64 path.
//
// Samples are processed in chunks of `b` so each GEMM is wide: for a chunk and a group,
//   cols  [K, b·OHW]   K = (C/groups)·KH·KW, the input patches (im2col)
//   out   [O/g, b·OHW] = W_g [O/g, K] · cols                              (forward)
//   dcols [K, b·OHW]   = W_gᵀ · grad_out_g, scattered back by col2im      (backward data)
//   dW_g  [O/g, K]    += grad_out_g · colsᵀ                               (backward weights)
// with grad_out_g / out gathered to and scattered from [O/g, b·OHW] rows.
#include <omp.h>

#include <algorithm>
#include <cstring>

#include "exadnn/backend/kernels.h"
#include "loops.h"
#include "nn_impl.h"

namespace exadnn::cpu {

Tensor scratch_tensor(const Shape& shape, DType dtype) {
  const size_t bytes = std::max<size_t>(static_cast<size_t>(shape.numel()) * dtype_size(dtype), 64);
  return make_view(Storage::allocate(bytes, Device::cpu(), MemoryKind::host), shape,
                   contiguous_strides(shape), 0, dtype);
}

namespace native {

namespace {

// Bytes of cols a chunk may use.
constexpr int64_t kChunkBytes = int64_t{8} << 20;

struct Plan {
  int64_t cg, og, K, ohw, hw, chunk;
};

template <class T>
Plan plan(const Conv2dGeometry& g) {
  Plan p;
  p.cg = g.c / g.groups;
  p.og = g.o / g.groups;
  p.K = p.cg * g.kh * g.kw;
  p.ohw = g.oh * g.ow;
  p.hw = g.h * g.w;
  const int64_t per_sample = std::max<int64_t>(p.K * p.ohw * static_cast<int64_t>(sizeof(T)), 1);
  p.chunk = std::clamp<int64_t>(kChunkBytes / per_sample, 1, std::max<int64_t>(g.n, 1));
  return p;
}

bool parallel(int64_t work) {
  return work >= kParallelGrain && omp_get_max_threads() > 1;
}

// cols[r, col0 + oy·OW + ox] = x[c, iy, ix] (0 outside the input) for rows r = (c, i, j) of one
// sample's group; ld is the row length of cols.
template <class T>
void im2col(const Conv2dGeometry& g, const Plan& p, const T* x, T* cols, int64_t ld, int64_t col0) {
  const int64_t rows = p.K;
#pragma omp parallel for if (parallel(rows * p.ohw)) schedule(static)
  for (int64_t r = 0; r < rows; ++r) {
    const int64_t c = r / (g.kh * g.kw), i = (r / g.kw) % g.kh, j = r % g.kw;
    const T* src = x + c * p.hw;
    T* dst = cols + r * ld + col0;
    for (int64_t oy = 0; oy < g.oh; ++oy) {
      const int64_t iy = oy * g.stride_h - g.pad_h + i * g.dilation_h;
      T* row = dst + oy * g.ow;
      if (iy < 0 || iy >= g.h) {
        std::fill(row, row + g.ow, T(0));
        continue;
      }
      const T* srow = src + iy * g.w;
      const int64_t x0 = j * g.dilation_w - g.pad_w;  // input column of ox = 0
      for (int64_t ox = 0; ox < g.ow; ++ox) {
        const int64_t ix = x0 + ox * g.stride_w;
        row[ox] = ix >= 0 && ix < g.w ? srow[ix] : T(0);
      }
    }
  }
}

// x[c, iy, ix] += cols[r, col0 + oy·OW + ox]: the adjoint of im2col (x zeroed by the caller).
template <class T>
void col2im(const Conv2dGeometry& g, const Plan& p, const T* cols, int64_t ld, int64_t col0, T* x) {
#pragma omp parallel for if (parallel(p.K * p.ohw)) schedule(static)
  for (int64_t c = 0; c < p.cg; ++c) {  // rows of one channel write the same plane
    T* plane = x + c * p.hw;
    for (int64_t i = 0; i < g.kh; ++i)
      for (int64_t j = 0; j < g.kw; ++j) {
        const T* src = cols + ((c * g.kh + i) * g.kw + j) * ld + col0;
        for (int64_t oy = 0; oy < g.oh; ++oy) {
          const int64_t iy = oy * g.stride_h - g.pad_h + i * g.dilation_h;
          if (iy < 0 || iy >= g.h) continue;
          T* prow = plane + iy * g.w;
          const T* row = src + oy * g.ow;
          const int64_t x0 = j * g.dilation_w - g.pad_w;
          for (int64_t ox = 0; ox < g.ow; ++ox) {
            const int64_t ix = x0 + ox * g.stride_w;
            if (ix >= 0 && ix < g.w) prow[ix] += row[ox];
          }
        }
      }
  }
}

// Copies the [O/g, OHW] block of group `grp` of samples n0..n0+b of a [N, O, OHW] tensor to or
// from rows of a [O/g, b·OHW] matrix.
template <class T, bool ToRows>
void shuffle(const Conv2dGeometry& g, const Plan& p, int64_t n0, int64_t b, int64_t grp, T* nchw,
             T* rows) {
  const int64_t ld = b * p.ohw;
#pragma omp parallel for collapse(2) if (parallel(p.og * ld)) schedule(static)
  for (int64_t s = 0; s < b; ++s)
    for (int64_t oc = 0; oc < p.og; ++oc) {
      T* t = nchw + ((n0 + s) * g.o + grp * p.og + oc) * p.ohw;
      T* r = rows + oc * ld + s * p.ohw;
      if constexpr (ToRows)
        std::memcpy(r, t, sizeof(T) * p.ohw);
      else
        std::memcpy(t, r, sizeof(T) * p.ohw);
    }
}

}  // namespace

template <class T>
void conv2d_forward(const Conv2dGeometry& g, const Tensor& out, const Tensor& x,
                    const Tensor& weight, const Tensor& bias) {
  const Plan p = plan<T>(g);
  const T* xp = static_cast<const T*>(x.data_ptr());
  const T* wp = static_cast<const T*>(weight.data_ptr());
  T* op = static_cast<T*>(out.data_ptr());
  if (p.K == 0) {
    std::fill(op, op + out.numel(), T(0));
  } else if (p.ohw > 0) {
    Tensor cols = scratch_tensor({p.K, p.chunk * p.ohw}, dtype_v<T>);
    Tensor rows = scratch_tensor({p.og, p.chunk * p.ohw}, dtype_v<T>);
    T* cp = static_cast<T*>(cols.data_ptr());
    T* rp = static_cast<T*>(rows.data_ptr());
    for (int64_t n0 = 0; n0 < g.n; n0 += p.chunk) {
      const int64_t b = std::min(p.chunk, g.n - n0), ld = b * p.ohw;
      for (int64_t grp = 0; grp < g.groups; ++grp) {
        for (int64_t s = 0; s < b; ++s)
          im2col(g, p, xp + ((n0 + s) * g.c + grp * p.cg) * p.hw, cp, ld, s * p.ohw);
        gemm<T>(false, false, p.og, ld, p.K, wp + grp * p.og * p.K, p.K, cp, ld, 0.0, rp, ld);
        shuffle<T, false>(g, p, n0, b, grp, op, rp);
      }
    }
  }
  if (bias.defined()) add_channel_bias<T>(g, out, bias);
}

template <class T>
void add_channel_bias(const Conv2dGeometry& g, const Tensor& out, const Tensor& bias) {
  const int64_t ohw = g.oh * g.ow;
  const T* bp = static_cast<const T*>(bias.data_ptr());
  T* op = static_cast<T*>(out.data_ptr());
#pragma omp parallel for collapse(2) if (parallel(out.numel())) schedule(static)
  for (int64_t s = 0; s < g.n; ++s)
    for (int64_t oc = 0; oc < g.o; ++oc) {
      T* t = op + (s * g.o + oc) * ohw;
      for (int64_t i = 0; i < ohw; ++i) t[i] += bp[oc];
    }
}

template <class T>
void conv2d_backward_data(const Conv2dGeometry& g, const Tensor& grad_x, const Tensor& grad_out,
                          const Tensor& weight) {
  const Plan p = plan<T>(g);
  T* gx = static_cast<T*>(grad_x.data_ptr());
  std::fill(gx, gx + grad_x.numel(), T(0));
  if (p.K == 0 || p.ohw == 0 || p.og == 0) return;
  const T* wp = static_cast<const T*>(weight.data_ptr());
  T* go = static_cast<T*>(grad_out.data_ptr());
  Tensor cols = scratch_tensor({p.K, p.chunk * p.ohw}, dtype_v<T>);
  Tensor rows = scratch_tensor({p.og, p.chunk * p.ohw}, dtype_v<T>);
  T* cp = static_cast<T*>(cols.data_ptr());
  T* rp = static_cast<T*>(rows.data_ptr());
  for (int64_t n0 = 0; n0 < g.n; n0 += p.chunk) {
    const int64_t b = std::min(p.chunk, g.n - n0), ld = b * p.ohw;
    for (int64_t grp = 0; grp < g.groups; ++grp) {
      shuffle<T, true>(g, p, n0, b, grp, go, rp);
      gemm<T>(true, false, p.K, ld, p.og, wp + grp * p.og * p.K, p.K, rp, ld, 0.0, cp, ld);
      for (int64_t s = 0; s < b; ++s)
        col2im(g, p, cp, ld, s * p.ohw, gx + ((n0 + s) * g.c + grp * p.cg) * p.hw);
    }
  }
}

template <class T>
void conv2d_backward_weights(const Conv2dGeometry& g, const Tensor& grad_weight,
                             const Tensor& grad_bias, const Tensor& grad_out, const Tensor& x) {
  const Plan p = plan<T>(g);
  T* go = static_cast<T*>(grad_out.data_ptr());
  if (grad_bias.defined()) {
    T* gb = static_cast<T*>(grad_bias.data_ptr());
#pragma omp parallel for if (parallel(grad_out.numel())) schedule(static)
    for (int64_t oc = 0; oc < g.o; ++oc) {
      double s = 0.0;
      for (int64_t n = 0; n < g.n; ++n) {
        const T* t = go + (n * g.o + oc) * p.ohw;
        for (int64_t i = 0; i < p.ohw; ++i) s += t[i];
      }
      gb[oc] = static_cast<T>(s);
    }
  }
  if (!grad_weight.defined()) return;
  T* gw = static_cast<T*>(grad_weight.data_ptr());
  if (p.K == 0 || p.ohw == 0 || g.n == 0) {
    std::fill(gw, gw + grad_weight.numel(), T(0));
    return;
  }
  const T* xp = static_cast<const T*>(x.data_ptr());
  Tensor cols = scratch_tensor({p.K, p.chunk * p.ohw}, dtype_v<T>);
  Tensor rows = scratch_tensor({p.og, p.chunk * p.ohw}, dtype_v<T>);
  T* cp = static_cast<T*>(cols.data_ptr());
  T* rp = static_cast<T*>(rows.data_ptr());
  for (int64_t n0 = 0; n0 < g.n; n0 += p.chunk) {
    const int64_t b = std::min(p.chunk, g.n - n0), ld = b * p.ohw;
    for (int64_t grp = 0; grp < g.groups; ++grp) {
      shuffle<T, true>(g, p, n0, b, grp, go, rp);
      for (int64_t s = 0; s < b; ++s)
        im2col(g, p, xp + ((n0 + s) * g.c + grp * p.cg) * p.hw, cp, ld, s * p.ohw);
      gemm<T>(false, true, p.og, p.K, ld, rp, ld, cp, ld, n0 == 0 ? 0.0 : 1.0,
              gw + grp * p.og * p.K, p.K);
    }
  }
}

#define EXADNN_INSTANTIATE(T)                                                                   \
  template void conv2d_forward<T>(const Conv2dGeometry&, const Tensor&, const Tensor&,          \
                                  const Tensor&, const Tensor&);                                \
  template void conv2d_backward_data<T>(const Conv2dGeometry&, const Tensor&, const Tensor&,    \
                                        const Tensor&);                                         \
  template void conv2d_backward_weights<T>(const Conv2dGeometry&, const Tensor&, const Tensor&, \
                                           const Tensor&, const Tensor&);                       \
  template void add_channel_bias<T>(const Conv2dGeometry&, const Tensor&, const Tensor&);
EXADNN_INSTANTIATE(float)
EXADNN_INSTANTIATE(double)
#undef EXADNN_INSTANTIATE

}  // namespace native

}  // namespace exadnn::cpu
