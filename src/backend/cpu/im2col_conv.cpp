// Convolution by im2col + GEMM (f32 and f64): one of the measured f32 routes, the fallback to
// oneDNN, and the f64 path.
//
// Samples are processed in chunks of `b` so each GEMM is wide: for a chunk and a group,
//   cols  [K, b·OHW]   K = (C/groups)·KH·KW, the input patches (im2col)
//   out   [O/g, b·OHW] = W_g [O/g, K] · cols                              (forward)
//   dcols [K, b·OHW]   = W_gᵀ · grad_out_g, scattered back by col2im      (backward data)
//   dW_g  [O/g, K]    += grad_out_g · colsᵀ                               (backward weights)
// with grad_out_g / out gathered to and scattered from [O/g, b·OHW] rows.
//
// Where there are at least as many samples as threads, each thread takes whole chunks with its
// own buffers (about 1 MiB of cols, read back by the GEMM soon after the copies wrote them) and
// runs sequential GEMMs; the weights' gradient is summed over the threads' partial products
// at the end. With fewer samples (inference on a few large images) the threads share each chunk:
// the copies are split over them and the GEMM is threaded.
#include <omp.h>

#include <algorithm>
#include <cstring>
#include <vector>

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

// Bytes of cols a chunk may use: a thread's own chunk the size the channels-last route measured
// fastest (nhwc_im2col_conv.cpp; not tuned again here: one image of ResNet-18's 64-channel 3x3
// layer is 0.6 MB, docs/performance.md); a chunk the threads share is larger, for wide threaded
// GEMMs.
constexpr int64_t kOwnChunkBytes = int64_t{1} << 20;
constexpr int64_t kSharedChunkBytes = int64_t{8} << 20;
// The threads' partial weight gradients may take this much together; beyond it (many threads
// and a large layer) the threads share each chunk instead.
constexpr int64_t kPartialsBytes = int64_t{64} << 20;

struct Plan {
  int64_t cg, og, K, ohw, hw;
  int slots;       // buffer slots: one per thread when each takes its own chunks, else 1
  int64_t chunk;   // samples per chunk
  int64_t chunks;  // ceil(n / chunk)
};

// `partial_bytes`: what a thread's own chunks would need besides the chunk (its partial weight
// gradient).
template <class T>
Plan plan(const Conv2dGeometry& g, int64_t partial_bytes = 0) {
  Plan p;
  p.cg = g.c / g.groups;
  p.og = g.o / g.groups;
  p.K = p.cg * g.kh * g.kw;
  p.ohw = g.oh * g.ow;
  p.hw = g.h * g.w;
  const int threads = omp_in_parallel() ? 1 : omp_get_max_threads();
  const bool own = threads > 1 && g.n >= threads && threads * partial_bytes <= kPartialsBytes;
  p.slots = own ? threads : 1;
  const int64_t per_sample = std::max<int64_t>(p.K * p.ohw * static_cast<int64_t>(sizeof(T)), 1);
  const int64_t samples = own ? (g.n + threads - 1) / threads : std::max<int64_t>(g.n, 1);
  p.chunk = std::clamp<int64_t>(
      std::min((own ? kOwnChunkBytes : kSharedChunkBytes) / per_sample, samples), 1,
      std::max<int64_t>(g.n, 1));
  p.chunks = (g.n + p.chunk - 1) / p.chunk;
  return p;
}

// Splits a copy loop over the threads unless they already work on chunks of their own.
bool parallel(int64_t work) {
  return work >= kParallelGrain && !omp_in_parallel() && omp_get_max_threads() > 1;
}

// Runs body(slot, n0, b) for the chunks of samples [n0, n0 + b): spread over the threads, each
// with its own buffer slot, or (one slot) one after another.
template <class Body>
void for_each_chunk(const Conv2dGeometry& g, const Plan& p, const Body& body) {
  if (p.slots == 1) {
    for (int64_t c = 0; c < p.chunks; ++c)
      body(0, c * p.chunk, std::min(p.chunk, g.n - c * p.chunk));
    return;
  }
#pragma omp parallel num_threads(p.slots)
  {
    const int slot = omp_get_thread_num();
#pragma omp for schedule(static)
    for (int64_t c = 0; c < p.chunks; ++c)
      body(slot, c * p.chunk, std::min(p.chunk, g.n - c * p.chunk));
  }
}

// One slot's part of a [slots, size] scratch tensor.
template <class T>
T* slot_of(const Tensor& buffers, int slot, int64_t size) {
  return static_cast<T*>(buffers.data_ptr()) + slot * size;
}

// Each buffer slot's cols [K, chunk·OHW] and rows [O/g, chunk·OHW].
template <class T>
struct ChunkBuffers {
  explicit ChunkBuffers(const Plan& p)
      : cols_size(p.K * p.chunk * p.ohw),
        rows_size(p.og * p.chunk * p.ohw),
        cols(scratch_tensor({p.slots, cols_size}, dtype_v<T>)),
        rows(scratch_tensor({p.slots, rows_size}, dtype_v<T>)) {}
  T* cols_of(int slot) const { return slot_of<T>(cols, slot, cols_size); }
  T* rows_of(int slot) const { return slot_of<T>(rows, slot, rows_size); }

  int64_t cols_size, rows_size;
  Tensor cols, rows;
};

// The output columns [begin, end) whose input column ox·stride − pad + j·dilation lies inside
// the image, for kernel column j; the others read padding.
struct ColumnRange {
  int64_t begin, end, x0;  // x0: the input column of ox = 0 (may be negative)
};
ColumnRange columns_inside(const Conv2dGeometry& g, int64_t j) {
  const int64_t x0 = j * g.dilation_w - g.pad_w, s = g.stride_w;
  // first ox with x0 + ox·s >= 0, and one past the last with x0 + ox·s < w
  const int64_t begin = x0 >= 0 ? 0 : (-x0 + s - 1) / s;
  const int64_t end = g.w - x0 <= 0 ? 0 : (g.w - x0 + s - 1) / s;
  return {std::min(begin, g.ow), std::clamp(end, std::min(begin, g.ow), g.ow), x0};
}

// A row of cols as a shifted copy of the input plane: with stride 1 along rows and as many output
// as input columns (3x3 "same" convolutions), cols[oy·OW + ox] = plane[oy·OW + ox + shift] for
// every output pixel that reads inside the image; the flat range [from, to) of those reads stays
// inside the plane, and in each of its rows the columns outside [in.begin, in.end) wrapped into a
// neighbouring row and read padding instead.
struct PlaneShift {
  bool applies;
  int64_t shift, from, to;
};
PlaneShift plane_shift(const Conv2dGeometry& g, const Plan& p, int64_t i, int64_t j) {
  if (g.stride_w != 1 || g.ow != g.w || g.stride_h != 1 || g.ow == 0) return {false, 0, 0, 0};
  const int64_t dy = i * g.dilation_h - g.pad_h, dx = j * g.dilation_w - g.pad_w;
  const int64_t oy_begin = std::clamp<int64_t>(-dy, 0, g.oh);
  const int64_t oy_end = std::clamp<int64_t>(g.h - dy, oy_begin, g.oh);
  const int64_t shift = dy * g.w + dx, last = oy_end * g.ow;
  const int64_t from = std::clamp(std::max(oy_begin * g.ow, -shift), int64_t{0}, last);
  return {true, shift, from, std::clamp(p.hw - shift, from, last)};
}

// cols[r, col0 + oy·OW + ox] = x[c, iy, ix] (0 outside the input) for rows r = (c, i, j) of one
// sample's group; ld is the row length of cols. Rows of cols are short (an image's width), so
// the loops are the compiler's, not library calls.
template <class T>
void im2col(const Conv2dGeometry& g, const Plan& p, const T* x, T* cols, int64_t ld, int64_t col0) {
  const int64_t rows = p.K;
#pragma omp parallel for if (parallel(rows * p.ohw)) schedule(static)
  for (int64_t r = 0; r < rows; ++r) {
    const int64_t c = r / (g.kh * g.kw), i = (r / g.kw) % g.kh, j = r % g.kw;
    const ColumnRange in = columns_inside(g, j);
    const T* src = x + c * p.hw;
    T* dst = cols + r * ld + col0;
    if (const PlaneShift ps = plane_shift(g, p, i, j); ps.applies) {
      for (int64_t k = 0; k < ps.from; ++k) dst[k] = T(0);
#pragma omp simd
      for (int64_t k = ps.from; k < ps.to; ++k) dst[k] = src[k + ps.shift];
      for (int64_t k = ps.to; k < p.ohw; ++k) dst[k] = T(0);
      for (int64_t oy = ps.from / g.ow; oy * g.ow < ps.to; ++oy) {
        for (int64_t ox = 0; ox < in.begin; ++ox) dst[oy * g.ow + ox] = T(0);
        for (int64_t ox = in.end; ox < g.ow; ++ox) dst[oy * g.ow + ox] = T(0);
      }
      continue;
    }
    for (int64_t oy = 0; oy < g.oh; ++oy) {
      const int64_t iy = oy * g.stride_h - g.pad_h + i * g.dilation_h;
      T* row = dst + oy * g.ow;
      if (iy < 0 || iy >= g.h) {
        for (int64_t ox = 0; ox < g.ow; ++ox) row[ox] = T(0);
        continue;
      }
      const T* srow = src + iy * g.w + in.x0;  // srow[ox·stride] is input column of ox
      for (int64_t ox = 0; ox < in.begin; ++ox) row[ox] = T(0);
      if (g.stride_w == 1) {
#pragma omp simd
        for (int64_t ox = in.begin; ox < in.end; ++ox) row[ox] = srow[ox];
      } else {
        for (int64_t ox = in.begin; ox < in.end; ++ox) row[ox] = srow[ox * g.stride_w];
      }
      for (int64_t ox = in.end; ox < g.ow; ++ox) row[ox] = T(0);
    }
  }
}

// x[c, iy, ix] += cols[r, col0 + oy·OW + ox]: the adjoint of im2col (x zeroed by the caller).
// Where a plane shift applies, the wrapped columns of cols are zeroed first (cols is scratch) so
// that the whole range adds in one loop.
template <class T>
void col2im(const Conv2dGeometry& g, const Plan& p, T* cols, int64_t ld, int64_t col0, T* x) {
#pragma omp parallel for if (parallel(p.K * p.ohw)) schedule(static)
  for (int64_t c = 0; c < p.cg; ++c) {  // rows of one channel write the same plane
    T* plane = x + c * p.hw;
    for (int64_t i = 0; i < g.kh; ++i)
      for (int64_t j = 0; j < g.kw; ++j) {
        const ColumnRange in = columns_inside(g, j);
        T* src = cols + ((c * g.kh + i) * g.kw + j) * ld + col0;
        if (const PlaneShift ps = plane_shift(g, p, i, j); ps.applies) {
          for (int64_t oy = ps.from / g.ow; oy * g.ow < ps.to; ++oy) {
            for (int64_t ox = 0; ox < in.begin; ++ox) src[oy * g.ow + ox] = T(0);
            for (int64_t ox = in.end; ox < g.ow; ++ox) src[oy * g.ow + ox] = T(0);
          }
#pragma omp simd
          for (int64_t k = ps.from; k < ps.to; ++k) plane[k + ps.shift] += src[k];
          continue;
        }
        for (int64_t oy = 0; oy < g.oh; ++oy) {
          const int64_t iy = oy * g.stride_h - g.pad_h + i * g.dilation_h;
          if (iy < 0 || iy >= g.h) continue;
          T* prow = plane + iy * g.w + in.x0;  // prow[ox·stride] is input column of ox
          const T* row = src + oy * g.ow;
          if (g.stride_w == 1) {
#pragma omp simd
            for (int64_t ox = in.begin; ox < in.end; ++ox) prow[ox] += row[ox];
          } else {
            for (int64_t ox = in.begin; ox < in.end; ++ox) prow[ox * g.stride_w] += row[ox];
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
    const ChunkBuffers<T> buffers(p);
    for_each_chunk(g, p, [&](int slot, int64_t n0, int64_t b) {
      T* cp = buffers.cols_of(slot);
      T* rp = buffers.rows_of(slot);
      const int64_t ld = b * p.ohw;
      for (int64_t grp = 0; grp < g.groups; ++grp) {
        for (int64_t s = 0; s < b; ++s)
          im2col(g, p, xp + ((n0 + s) * g.c + grp * p.cg) * p.hw, cp, ld, s * p.ohw);
        gemm<T>(false, false, p.og, ld, p.K, wp + grp * p.og * p.K, p.K, cp, ld, 0.0, rp, ld);
        shuffle<T, false>(g, p, n0, b, grp, op, rp);
      }
    });
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
  if (p.K == 0 || p.ohw == 0 || p.og == 0) {
    std::fill(gx, gx + grad_x.numel(), T(0));
    return;
  }
  const T* wp = static_cast<const T*>(weight.data_ptr());
  T* go = static_cast<T*>(grad_out.data_ptr());
  const ChunkBuffers<T> buffers(p);
  for_each_chunk(g, p, [&](int slot, int64_t n0, int64_t b) {
    T* cp = buffers.cols_of(slot);
    T* rp = buffers.rows_of(slot);
    const int64_t ld = b * p.ohw;
    std::fill(gx + n0 * g.c * p.hw, gx + (n0 + b) * g.c * p.hw, T(0));
    for (int64_t grp = 0; grp < g.groups; ++grp) {
      shuffle<T, true>(g, p, n0, b, grp, go, rp);
      gemm<T>(true, false, p.K, ld, p.og, wp + grp * p.og * p.K, p.K, rp, ld, 0.0, cp, ld);
      for (int64_t s = 0; s < b; ++s)
        col2im(g, p, cp, ld, s * p.ohw, gx + ((n0 + s) * g.c + grp * p.cg) * p.hw);
    }
  });
}

template <class T>
void conv2d_backward_weights(const Conv2dGeometry& g, const Tensor& grad_weight,
                             const Tensor& grad_bias, const Tensor& grad_out, const Tensor& x) {
  const int64_t weights = g.o * (g.c / std::max<int64_t>(g.groups, 1)) * g.kh * g.kw;
  const Plan p = plan<T>(g, weights * static_cast<int64_t>(sizeof(T)));
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
  const ChunkBuffers<T> buffers(p);
  // Slot 0 accumulates into grad_weight, slot t > 0 into partials[t - 1] [O, C/g, KH, KW].
  const Tensor partials = scratch_tensor({p.slots - 1, weights}, dtype_v<T>);
  std::vector<char> worked(static_cast<size_t>(p.slots), 0);
  for_each_chunk(g, p, [&](int slot, int64_t n0, int64_t b) {
    T* cp = buffers.cols_of(slot);
    T* rp = buffers.rows_of(slot);
    T* dw = slot == 0 ? gw : slot_of<T>(partials, slot - 1, weights);
    const double beta = worked[static_cast<size_t>(slot)] ? 1.0 : 0.0;
    const int64_t ld = b * p.ohw;
    for (int64_t grp = 0; grp < g.groups; ++grp) {
      shuffle<T, true>(g, p, n0, b, grp, go, rp);
      for (int64_t s = 0; s < b; ++s)
        im2col(g, p, xp + ((n0 + s) * g.c + grp * p.cg) * p.hw, cp, ld, s * p.ohw);
      gemm<T>(false, true, p.og, p.K, ld, rp, ld, cp, ld, beta, dw + grp * p.og * p.K, p.K);
    }
    worked[static_cast<size_t>(slot)] = 1;
  });
  if (!worked[0]) std::fill(gw, gw + weights, T(0));
  for (int slot = 1; slot < p.slots; ++slot) {
    if (!worked[static_cast<size_t>(slot)]) continue;
    const T* part = slot_of<T>(partials, slot - 1, weights);
#pragma omp parallel for if (parallel(weights)) schedule(static)
    for (int64_t i = 0; i < weights; ++i) gw[i] += part[i];
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
