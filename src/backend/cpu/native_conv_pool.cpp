// Convolution + 2x2 max pooling (stride 2) for layers with few input channels (f32), e.g. a CNN's
// first layer (1 or 3 channels in, 5x5 taps): a direct loop that keeps each 2x2 window's four
// convolution outputs in registers, pools them there and writes only the pooled tensor and, per
// pooled value, which of the four it came from. The convolution's output (4x the pooled tensor)
// never reaches memory, and no reorder runs. oneDNN's kernels need many input channels to be
// efficient: with 1 input channel and 25 taps its forward, its pooling and the reorders of the
// convolution's output took ~1 ms a step on the CNN's [128, 1, 28, 28] batch (docs/performance.md).
//
// Layout: the input image is copied per thread into a zero-bordered [c, h + 2 pad_h, w + 2 pad_w]
// plane (any input strides), the weights are transposed to [c, kh, kw, o] so that 16 (AVX-512)
// or 8 (AVX2) output channels are one vector, and the kernel computes per block 2 conv rows x 4
// conv columns (two pooled outputs) x 32 output channels with AVX-512 (16 accumulators of 16
// lanes, FMA-bound), 2 rows x 2 columns (one pooled output) x 16 channels with AVX2's 16
// registers (8 accumulators of 8 lanes).
//
// The pooled value is the first maximum of its window in row-major order (the first NaN when
// there is one), as exadnn's pooling loops and oneDNN choose it; the workspace, i32
// [n, ph, pw, o], holds its position (0..3 = (0,0), (0,1), (1,0), (1,1)); i32, not u8, because
// GCC widens bytes to lanes element by element. With the ReLU (conv2d_relu_max_pool_forward) a
// value that is not > 0 is written as 0 and its code is kNoGradient, which matches no position:
// the backward's masks then drop its gradient as the ReLU's would, with no pass of their own
// (the codes stand for saved.relu_output, which this path does not read).
//
// Built twice with GCC's vector extensions, for AVX-512 (x86-64-v4) and for AVX2 + FMA
// (x86-64-v3): native_conv_pool_kernels.h, included once per instruction set; the CPU picks one
// at first use. Without either conv_pool_fits is false and oneDNN runs the layer. (GCC 12 lowers
// the vector comparisons of a target_clones function for the baseline target, element by
// element, so the clones of vector_clones.h do not serve here; a plain target attribute does.)
//
// Backward: the weights' gradient per tap row, kw taps x 32 channels (AVX-512; 8 with AVX2)
// accumulated in registers
// over the image's pooled positions (the four window positions each masked by the workspace);
// the bias gradient is the sum of the pooled gradient (pooling routes each value to one
// position); the input's gradient, when asked for (a first layer's input needs none), by oneDNN's
// backward-data pass over the unpooled gradient (exadnn's own loop for it measured 1.2-4x slower
// than oneDNN's: a vector dot product over the channels per tap and pixel).
#include <omp.h>

#include <algorithm>
#include <cstring>
#include <utility>
#include <vector>

#include "nn_impl.h"

namespace exadnn::cpu::native {

namespace {

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

// Where one image's pooled values go: out (channels-last or NCHW, by its strides) and the codes.
struct PooledOut {
  float* out;
  Strides os;
  int32_t* codes;  // [ph, pw, o] of this image
  int64_t n;
  bool relu;  // max(0, ·) of the pooled values
};

// The pooled gradient of one image: grad_out (by its strides) and the forward's codes.
struct PooledGrad {
  const float* grad;
  Strides gs;
  const int32_t* codes;  // [ph, pw, o] of this image
  int64_t n;
};

// One image's forward (xp: its padded planes, wt: [c, kh, kw, o] weights, bias [o]) and its
// weights' gradient (dw [c, kh, kw, o] and db [o] accumulated).
using ConvPoolImage = void(const Shape4&, const float*, const float*, const float*,
                           const PooledOut&);
using WeightGradImage = void(const Shape4&, const float*, const PooledGrad&, float*, float*);

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wpsabi"
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
#define EXADNN_CP_VECTOR_KERNELS 1
namespace avx512 {
#define EXADNN_CP_TARGET \
  __attribute__((target("arch=x86-64-v4"), optimize("no-predictive-commoning")))
#define EXADNN_CP_LANES 16
#define EXADNN_CP_PAIRS 2
#define EXADNN_CP_WEIGHT_NB 2
#include "native_conv_pool_kernels.h"
#undef EXADNN_CP_TARGET
#undef EXADNN_CP_LANES
#undef EXADNN_CP_PAIRS
#undef EXADNN_CP_WEIGHT_NB
}  // namespace avx512
namespace avx2 {
#define EXADNN_CP_TARGET \
  __attribute__((target("arch=x86-64-v3"), optimize("no-predictive-commoning")))
#define EXADNN_CP_LANES 8
#define EXADNN_CP_PAIRS 1
#define EXADNN_CP_WEIGHT_NB 1
#include "native_conv_pool_kernels.h"
#undef EXADNN_CP_TARGET
#undef EXADNN_CP_LANES
#undef EXADNN_CP_PAIRS
#undef EXADNN_CP_WEIGHT_NB
}  // namespace avx2
#endif
#pragma GCC diagnostic pop

// The kernels this CPU runs: its vector width (0: none) and the kernel for a shape.
struct Kernels {
  int64_t lanes = 0;
  ConvPoolImage* (*forward)(const Shape4&) = nullptr;
  WeightGradImage* (*weight_grad)(const Shape4&) = nullptr;
};

const Kernels& kernels() {
  static const Kernels k = [] {
#ifdef EXADNN_CP_VECTOR_KERNELS
    if (__builtin_cpu_supports("x86-64-v4"))
      return Kernels{avx512::kLanes, &avx512::forward_kernel, &avx512::weight_grad_kernel};
    if (__builtin_cpu_supports("x86-64-v3"))
      return Kernels{avx2::kLanes, &avx2::forward_kernel, &avx2::weight_grad_kernel};
#endif
    return Kernels{};
  }();
  return k;
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
  return kernels().lanes > 0;
}

bool conv_pool_fits(const Conv2dGeometry& g, const Pool2dGeometry& p) {
  return conv_pool_loop_runs_here() && g.groups == 1 && g.stride_h == 1 && g.stride_w == 1 &&
         g.dilation_h == 1 && g.dilation_w == 1 && g.c <= 4 && g.o > 0 &&
         g.o % kernels().lanes == 0 && g.kw <= kMaxKernelWidth && p.kind == PoolKind::max &&
         p.kh == 2 && p.kw == 2 && p.stride_h == 2 && p.stride_w == 2 && p.pad_h == 0 &&
         p.pad_w == 0 && p.oh >= 1 && p.ow >= 1;
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
  ConvPoolImage* const conv_pool_image = kernels().forward(s);
#pragma omp parallel for schedule(static) if (g.n > 1)
  for (int64_t n = 0; n < g.n; ++n) {
    ThreadScratch& t = thread_scratch(s);
    pad_image(g, s, xd, xs, n, t.xp.data());
    const PooledOut dst{od, os, codes + n * s.ph * s.pw * s.o, n, relu};
    conv_pool_image(s, t.xp.data(), wt.data(), b.data(), dst);
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
  WeightGradImage* const weight_grad = kernels().weight_grad(s);
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
