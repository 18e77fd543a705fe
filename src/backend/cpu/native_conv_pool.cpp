// Convolution + 2x2 max pooling (stride 2) for layers with few input channels (f32), e.g. a CNN's
// first layer (1 or 3 channels in, 5x5 taps): a direct loop that keeps each 2x2 window's four
// convolution outputs in registers, pools them there and writes only the pooled tensor and, per
// pooled value, which of the four it came from. The convolution's output (4x the pooled tensor)
// never reaches memory, and no reorder runs. oneDNN's kernels need many input channels to be
// efficient: with 1 input channel and 25 taps its forward, its pooling and the reorders of the
// convolution's output took ~1 ms a step on the CNN's [128, 1, 28, 28] batch (docs/performance.md).
//
// Layout: the input image is copied per thread into a zero-bordered [c, h + 2 pad_h, w + 2 pad_w]
// plane (any input strides), the weights are transposed to [c, kh, kw, o] so that 16 output
// channels are one vector, and the kernel computes 2 conv rows x 4 conv columns (two pooled
// outputs) x 32 output channels per block: 16 accumulators of 16 lanes, FMA-bound.
//
// The pooled value is the first maximum of its window in row-major order (the first NaN when
// there is one), as exadnn's pooling loops and oneDNN choose it; the workspace, i32
// [n, ph, pw, o], holds its position (0..3 = (0,0), (0,1), (1,0), (1,1)); i32, not u8, because
// GCC widens bytes to lanes element by element. With the ReLU (conv2d_relu_max_pool_forward) a
// value that is not > 0 is written as 0 and its code is kNoGradient, which matches no position:
// the backward's masks then drop its gradient as the ReLU's would, with no pass of their own
// (the codes stand for saved.relu_output, which this path does not read).
//
// Built for AVX-512 (x86-64-v4) only, with GCC's vector extensions: elsewhere conv_pool_fits is
// false and oneDNN runs the layer. (GCC 12 lowers the vector comparisons of a target_clones
// function for the baseline target, element by element, so the clones of vector_clones.h do not
// serve here; a plain target attribute does.)
//
// Backward: the weights' gradient per tap row, kw taps x 32 channels accumulated in registers
// over the image's pooled positions (the four window positions each masked by the workspace);
// the bias gradient is the sum of the pooled gradient (pooling routes each value to one
// position); the input's gradient, when asked for (a first layer's input needs none), by oneDNN's
// backward-data pass over the unpooled gradient (exadnn's own loop for it measured 1.2-4x slower
// than oneDNN's: a vector dot product over the channels per tap and pixel).
#include <omp.h>

#include <algorithm>
#include <cstring>
#include <vector>

#include "nn_impl.h"

namespace exadnn::cpu::native {

namespace {

constexpr int64_t kLanes = 16;
typedef float Vf __attribute__((vector_size(kLanes * sizeof(float))));
typedef int32_t Vi __attribute__((vector_size(kLanes * sizeof(int32_t))));
constexpr int kMaxKernelWidth = 7;
constexpr int32_t kNoGradient = 4;  // the code of a value the ReLU zeroed

// The sizes the loops use, from the two geometries.
struct Shape4 {
  int64_t c, kh, kw, o;  // input channels, kernel, output channels
  int64_t hp, wp;        // the zero-bordered input plane
  int64_t ph, pw;        // the pooled output
  int64_t plane() const { return hp * wp; }
  int64_t taps() const { return c * kh * kw; }
};

Shape4 shape_of(const Conv2dGeometry& g, const Pool2dGeometry& p) {
  return {g.c, g.kh, g.kw, g.o, g.h + 2 * g.pad_h, g.w + 2 * g.pad_w, p.oh, p.ow};
}

// Element strides of a 4-D tensor.
struct Strides {
  int64_t n, c, h, w;
  explicit Strides(const Tensor& t)
      : n(t.strides()[0]), c(t.strides()[1]), h(t.strides()[2]), w(t.strides()[3]) {}
  Strides(int64_t sn, int64_t sc, int64_t sh, int64_t sw) : n(sn), c(sc), h(sh), w(sw) {}
  int64_t at(int64_t in, int64_t ic, int64_t iy, int64_t ix) const {
    return in * n + ic * c + iy * h + ix * w;
  }
};

// Image `n` of x into xp [c, hp, wp] with zero borders.
void pad_image(const Conv2dGeometry& g, const Shape4& s, const float* x, const Strides& xs,
               int64_t n, float* xp) {
  std::fill(xp, xp + s.c * s.plane(), 0.0f);
  for (int64_t ci = 0; ci < g.c; ++ci)
    for (int64_t y = 0; y < g.h; ++y) {
      float* row = xp + ci * s.plane() + (y + g.pad_h) * s.wp + g.pad_w;
      for (int64_t ix = 0; ix < g.w; ++ix) row[ix] = x[xs.at(n, ci, y, ix)];
    }
}

// Every function that touches a vector is built for AVX-512; the helpers are inlined into the
// kernels, so the ABI of passing a 64-byte vector by value, which GCC warns about, never applies.
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
#define EXADNN_AVX512 __attribute__((target("arch=x86-64-v4"), optimize("no-predictive-commoning")))
bool has_avx512() {
  return __builtin_cpu_supports("x86-64-v4");
}
#else
#define EXADNN_AVX512
bool has_avx512() {
  return false;
}
#endif
#define EXADNN_INLINE EXADNN_AVX512 inline __attribute__((always_inline))
#pragma GCC diagnostic ignored "-Wpsabi"

EXADNN_INLINE Vf load(const float* p) {
  Vf v;
  std::memcpy(&v, p, sizeof v);
  return v;
}

// ---- forward --------------------------------------------------------------------------------

// Where one image's pooled values go: out (channels-last or NCHW, by its strides) and the codes.
struct PooledOut {
  float* out;
  Strides os;
  int32_t* codes;  // [ph, pw, o] of this image
  int64_t n;
  bool relu;  // max(0, ·) of the pooled values
};

// The pooled outputs (py, px + p) for p < PX, channels ch0 .. ch0 + 16 NB, of one image.
// acc[r][q][k]: conv row 2py + r, conv column 2px + q, channel vector k (bias not yet added).
template <int NB, int PX>
EXADNN_INLINE void conv_pool_block(const Shape4& s, const float* xp, const float* wt,
                                   const float* bias, int64_t py, int64_t px, int64_t ch0,
                                   const PooledOut& dst) {
  Vf acc[2][2 * PX][NB] = {};
  for (int64_t ci = 0; ci < s.c; ++ci)
    for (int64_t i = 0; i < s.kh; ++i) {
      const float* r0 = xp + ci * s.plane() + (2 * py + i) * s.wp + 2 * px;
      const float* r1 = r0 + s.wp;
      const float* wrow = wt + (ci * s.kh + i) * s.kw * s.o + ch0;
      for (int64_t j = 0; j < s.kw; ++j) {
        Vf w[NB];
#pragma GCC unroll 2
        for (int k = 0; k < NB; ++k) w[k] = load(wrow + j * s.o + k * kLanes);
#pragma GCC unroll 4
        for (int q = 0; q < 2 * PX; ++q) {
          const Vf a = r0[q + j] - Vf{}, b = r1[q + j] - Vf{};  // broadcasts
#pragma GCC unroll 2
          for (int k = 0; k < NB; ++k) {
            acc[0][q][k] += a * w[k];
            acc[1][q][k] += b * w[k];
          }
        }
      }
    }
#pragma GCC unroll 2
  for (int p = 0; p < PX; ++p)
#pragma GCC unroll 2
    for (int k = 0; k < NB; ++k) {
      const Vf bv = load(bias + ch0 + k * kLanes);
      const Vf cand[4] = {acc[0][2 * p][k], acc[0][2 * p + 1][k], acc[1][2 * p][k],
                          acc[1][2 * p + 1][k]};
      Vf m = cand[0] + bv;
      Vi code = Vi{};
#pragma GCC unroll 3
      for (int q = 1; q < 4; ++q) {
        const Vf v = cand[q] + bv;
        const Vi takes = (v > m) | ((v != v) & (m == m));  // larger, or the first NaN
        m = takes ? v : m;
        code = takes ? Vi{} + q : code;
      }
      if (dst.relu) {
        const Vi keep = m > Vf{};  // not for 0, negatives and NaN, as relu's own loop
        m = keep ? m : Vf{};
        code = keep ? code : Vi{} + kNoGradient;
      }
      const int64_t ch = ch0 + k * kLanes, opx = px + p;
      std::memcpy(dst.codes + (py * s.pw + opx) * s.o + ch, &code, sizeof code);
      float* o = dst.out + dst.os.at(dst.n, ch, py, opx);
      if (dst.os.c == 1) {
        std::memcpy(o, &m, sizeof m);
      } else {
        for (int l = 0; l < kLanes; ++l) o[l * dst.os.c] = m[l];
      }
    }
}

template <int NB>
EXADNN_AVX512 void conv_pool_image(const Shape4& s, const float* xp, const float* wt,
                                   const float* bias, const PooledOut& dst) {
  for (int64_t ch0 = 0; ch0 < s.o; ch0 += NB * kLanes)
    for (int64_t py = 0; py < s.ph; ++py) {
      int64_t px = 0;
      for (; px + 2 <= s.pw; px += 2) conv_pool_block<NB, 2>(s, xp, wt, bias, py, px, ch0, dst);
      if (px < s.pw) conv_pool_block<NB, 1>(s, xp, wt, bias, py, px, ch0, dst);
    }
}

// ---- backward: weights ----------------------------------------------------------------------

// The pooled gradient of one image: grad_out (by its strides) and the forward's codes.
struct PooledGrad {
  const float* grad;
  Strides gs;
  const int32_t* codes;  // [ph, pw, o] of this image
  int64_t n;
  // The 16 channels from ch of position (py, px).
  EXADNN_INLINE Vf at(int64_t py, int64_t px, int64_t ch) const {
    const float* g = grad + gs.at(n, ch, py, px);
    if (gs.c == 1) return load(g);
    Vf v;
    for (int l = 0; l < kLanes; ++l) v[l] = g[l * gs.c];
    return v;
  }
  EXADNN_INLINE Vi code(const Shape4& s, int64_t py, int64_t px, int64_t ch) const {
    Vi v;
    std::memcpy(&v, codes + (py * s.pw + px) * s.o + ch, sizeof v);
    return v;
  }
};

// dw [c, kh, kw, o] += this image's gradient for the taps (ci, i, 0..KW-1), channels ch0 .. +16 NB.
template <int NB, int KW>
EXADNN_INLINE void weight_grad_row(const Shape4& s, const float* xp, const PooledGrad& g,
                                   int64_t ci, int64_t i, int64_t ch0, float* dw) {
  Vf acc[KW][NB] = {};
  for (int64_t py = 0; py < s.ph; ++py)
    for (int64_t px = 0; px < s.pw; ++px) {
      Vf grad[NB];
      Vi code[NB];
#pragma GCC unroll 2
      for (int k = 0; k < NB; ++k) {
        grad[k] = g.at(py, px, ch0 + k * kLanes);
        code[k] = g.code(s, py, px, ch0 + k * kLanes);
      }
#pragma GCC unroll 4
      for (int q = 0; q < 4; ++q) {
        Vf gq[NB];
#pragma GCC unroll 2
        for (int k = 0; k < NB; ++k) gq[k] = code[k] == q ? grad[k] : Vf{};
        const float* r = xp + ci * s.plane() + (2 * py + q / 2 + i) * s.wp + 2 * px + q % 2;
#pragma GCC unroll 7
        for (int j = 0; j < KW; ++j) {
          const Vf a = r[j] - Vf{};
#pragma GCC unroll 2
          for (int k = 0; k < NB; ++k) acc[j][k] += gq[k] * a;
        }
      }
    }
  float* row = dw + (ci * s.kh + i) * s.kw * s.o + ch0;
#pragma GCC unroll 7
  for (int j = 0; j < KW; ++j)
#pragma GCC unroll 2
    for (int k = 0; k < NB; ++k) {
      float* d = row + j * s.o + k * kLanes;
      const Vf sum = load(d) + acc[j][k];
      std::memcpy(d, &sum, sizeof sum);
    }
}

template <int NB, int KW>
EXADNN_AVX512 void weight_grad_image(const Shape4& s, const float* xp, const PooledGrad& g,
                                     float* dw, float* db) {
  for (int64_t ch0 = 0; ch0 < s.o; ch0 += NB * kLanes) {
    for (int64_t ci = 0; ci < s.c; ++ci)
      for (int64_t i = 0; i < s.kh; ++i) weight_grad_row<NB, KW>(s, xp, g, ci, i, ch0, dw);
    for (int k = 0; k < NB; ++k) {
      const int64_t ch = ch0 + k * kLanes;
      Vf sum = load(db + ch);
      for (int64_t py = 0; py < s.ph; ++py)
        for (int64_t px = 0; px < s.pw; ++px)
          sum += g.code(s, py, px, ch) == kNoGradient ? Vf{} : g.at(py, px, ch);
      std::memcpy(db + ch, &sum, sizeof sum);
    }
  }
}

using WeightGradImage = void(const Shape4&, const float*, const PooledGrad&, float*, float*);

template <int NB, int... KW>
WeightGradImage* weight_grad_for(int64_t kw, std::integer_sequence<int, KW...>) {
  WeightGradImage* f = nullptr;
  ((kw == KW + 1 ? (f = &weight_grad_image<NB, KW + 1>, 0) : 0), ...);
  return f;
}

WeightGradImage* weight_grad_kernel(const Shape4& s) {
  const auto widths = std::make_integer_sequence<int, kMaxKernelWidth>();
  return s.o % (2 * kLanes) == 0 ? weight_grad_for<2>(s.kw, widths)
                                 : weight_grad_for<1>(s.kw, widths);
}

// ---- backward: input ------------------------------------------------------------------------

// dy [n, o, oh, ow] (NCHW, zero-filled by the caller) gets the pooled gradient of image g.n at
// its window positions: the convolution's output gradient, for oneDNN's backward-data pass.
void unpool_image(const Shape4& s, const PooledGrad& g, int64_t oh, int64_t ow, float* dy) {
  for (int64_t py = 0; py < s.ph; ++py)
    for (int64_t px = 0; px < s.pw; ++px)
      for (int64_t ch = 0; ch < s.o; ++ch) {
        const int32_t q = g.codes[(py * s.pw + px) * s.o + ch];
        if (q != kNoGradient)
          dy[((g.n * s.o + ch) * oh + 2 * py + q / 2) * ow + 2 * px + q % 2] =
              g.grad[g.gs.at(g.n, ch, py, px)];
      }
}

// Per-thread scratch: the padded image, and (backward) the image's pooled gradient channels-last.
struct ThreadScratch {
  std::vector<float> xp, grad;
};

// Image g.n's pooled gradient as the weights' loop reads it fastest: itself when channels-last
// (16 channels are one vector load), else copied channels-last into `local` [ph, pw, o] (the
// loop would otherwise gather each vector element by element, kh times).
PooledGrad channels_last_grad(const Shape4& s, const PooledGrad& g, std::vector<float>& local) {
  if (g.gs.c == 1) return g;
  local.resize(static_cast<size_t>(s.ph * s.pw * s.o));
  for (int64_t py = 0; py < s.ph; ++py)
    for (int64_t px = 0; px < s.pw; ++px)
      for (int64_t ch = 0; ch < s.o; ++ch)
        local[(py * s.pw + px) * s.o + ch] = g.grad[g.gs.at(g.n, ch, py, px)];
  return {local.data(), Strides(0, 1, s.pw * s.o, s.o), g.codes, 0};
}

ThreadScratch& thread_scratch(const Shape4& s) {
  thread_local ThreadScratch t;
  t.xp.resize(static_cast<size_t>(s.c * s.plane()));
  return t;
}

// wt [c, kh, kw, o] from weight [o, c, kh, kw].
std::vector<float> transposed_weights(const Shape4& s, const Tensor& weight) {
  const float* w = static_cast<const float*>(weight.data_ptr());
  std::vector<float> wt(static_cast<size_t>(s.taps() * s.o));
  for (int64_t oc = 0; oc < s.o; ++oc)
    for (int64_t t = 0; t < s.taps(); ++t) wt[t * s.o + oc] = w[oc * s.taps() + t];
  return wt;
}

}  // namespace

bool conv_pool_loop_runs_here() {
  static const bool avx512 = has_avx512();
  return avx512;
}

bool conv_pool_fits(const Conv2dGeometry& g, const Pool2dGeometry& p) {
  return conv_pool_loop_runs_here() && g.groups == 1 && g.stride_h == 1 && g.stride_w == 1 &&
         g.dilation_h == 1 && g.dilation_w == 1 && g.c <= 4 && g.o > 0 && g.o % kLanes == 0 &&
         g.kw <= kMaxKernelWidth && p.kind == PoolKind::max && p.kh == 2 && p.kw == 2 &&
         p.stride_h == 2 && p.stride_w == 2 && p.pad_h == 0 && p.pad_w == 0 && p.oh >= 1 &&
         p.ow >= 1;
}

bool conv_pool_wrote(const ConvMaxPoolSaved& saved) {
  return saved.workspace.defined() && saved.workspace.dtype() == DType::i32;
}

ConvMaxPoolSaved conv2d_max_pool_forward(const Conv2dGeometry& g, const Pool2dGeometry& p,
                                         const Tensor& out, const Tensor& x, const Tensor& weight,
                                         const Tensor& bias, bool relu) {
  const Shape4 s = shape_of(g, p);
  const std::vector<float> wt = transposed_weights(s, weight);
  std::vector<float> b(static_cast<size_t>(s.o), 0.0f);
  if (bias.defined()) std::memcpy(b.data(), bias.data_ptr(), b.size() * sizeof(float));
  ConvMaxPoolSaved saved;
  saved.input = x;
  saved.bias = bias.defined();
  saved.x_channels_last = !x.is_contiguous();
  saved.out_channels_last = !out.is_contiguous();
  saved.workspace = scratch_tensor({g.n, s.ph, s.pw, s.o}, DType::i32);
  const float* xd = static_cast<const float*>(x.data_ptr());
  const Strides xs(x), os(out);
  float* od = static_cast<float*>(out.data_ptr());
  int32_t* codes = static_cast<int32_t*>(saved.workspace.data_ptr());
  const bool two = s.o % (2 * kLanes) == 0;
#pragma omp parallel for schedule(static) if (g.n > 1)
  for (int64_t n = 0; n < g.n; ++n) {
    ThreadScratch& t = thread_scratch(s);
    pad_image(g, s, xd, xs, n, t.xp.data());
    const PooledOut dst{od, os, codes + n * s.ph * s.pw * s.o, n, relu};
    if (two) {
      conv_pool_image<2>(s, t.xp.data(), wt.data(), b.data(), dst);
    } else {
      conv_pool_image<1>(s, t.xp.data(), wt.data(), b.data(), dst);
    }
  }
  return saved;
}

void conv2d_max_pool_backward(const Conv2dGeometry& g, const Pool2dGeometry& p,
                              const Tensor& grad_x, const Tensor& grad_weight,
                              const Tensor& grad_bias, const Tensor& grad_out, const Tensor& weight,
                              const ConvMaxPoolSaved& saved) {
  const Shape4 s = shape_of(g, p);
  const bool want_w = grad_weight.defined() || grad_bias.defined();
  // One [c, kh, kw, o] + [o] partial sum per thread, added in thread order (deterministic).
  const int threads = omp_get_max_threads();
  const int64_t per_thread = s.taps() * s.o + s.o;
  std::vector<float> partial(want_w ? static_cast<size_t>(threads * per_thread) : 0, 0.0f);
  WeightGradImage* weight_grad = weight_grad_kernel(s);
  const float* xd = static_cast<const float*>(saved.input.data_ptr());
  const Strides xs(saved.input), gs(grad_out);
  const float* gd = static_cast<const float*>(grad_out.data_ptr());
  const int32_t* codes = static_cast<const int32_t*>(saved.workspace.data_ptr());
  Tensor dy;  // [n, o, oh, ow]: the convolution's output gradient, when the input's is wanted
  float* dense = nullptr;
  if (grad_x.defined()) {
    dy = scratch_tensor({g.n, g.o, g.oh, g.ow}, DType::f32);
    dense = static_cast<float*>(dy.data_ptr());
    std::fill(dense, dense + dy.numel(), 0.0f);
  }
#pragma omp parallel for schedule(static) num_threads(threads) if (g.n > 1)
  for (int64_t n = 0; n < g.n; ++n) {
    const PooledGrad pg{gd, gs, codes + n * s.ph * s.pw * s.o, n};
    if (want_w) {
      ThreadScratch& t = thread_scratch(s);
      pad_image(g, s, xd, xs, n, t.xp.data());
      float* dw = partial.data() + omp_get_thread_num() * per_thread;
      weight_grad(s, t.xp.data(), channels_last_grad(s, pg, t.grad), dw, dw + s.taps() * s.o);
    }
    if (dense != nullptr) unpool_image(s, pg, g.oh, g.ow, dense);
  }
  if (grad_x.defined()) {  // oneDNN's backward-data pass (NCHW) over the unpooled gradient
    const bool packed = grad_x.is_contiguous();
    const Tensor gx = packed ? grad_x : scratch_tensor(grad_x.shape(), DType::f32);
    onednn::conv2d_backward_data(g, gx, dy, weight);
    if (!packed) {  // into grad_x's own strides (channels-last)
      const float* from = static_cast<const float*>(gx.data_ptr());
      float* to = static_cast<float*>(grad_x.data_ptr());
      const Strides xg(grad_x);
      for (int64_t n = 0, i = 0; n < g.n; ++n)
        for (int64_t ci = 0; ci < g.c; ++ci)
          for (int64_t y = 0; y < g.h; ++y)
            for (int64_t ix = 0; ix < g.w; ++ix) to[xg.at(n, ci, y, ix)] = from[i++];
    }
  }
  if (!want_w) return;
  for (int th = 1; th < threads; ++th)
    for (int64_t e = 0; e < per_thread; ++e) partial[e] += partial[th * per_thread + e];
  if (grad_weight.defined()) {
    float* gw = static_cast<float*>(grad_weight.data_ptr());
    for (int64_t oc = 0; oc < s.o; ++oc)
      for (int64_t t = 0; t < s.taps(); ++t) gw[oc * s.taps() + t] = partial[t * s.o + oc];
  }
  if (grad_bias.defined())
    std::memcpy(grad_bias.data_ptr(), partial.data() + s.taps() * s.o, s.o * sizeof(float));
}

}  // namespace exadnn::cpu::native
