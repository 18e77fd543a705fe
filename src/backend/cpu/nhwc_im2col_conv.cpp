// The backward passes of a channels-last f32 convolution by im2col + GEMM (groups 1): the
// measured alternative to oneDNN's kernels in the convolution + max pooling step
// (onednn_conv_pool.cpp), where oneDNN's AVX2 kernels run a CNN's conv2 backward passes at
// 55-60 % of the GEMM's rate (docs/performance.md).
//
// In channels-last memory a patch row is a handful of contiguous runs of C floats, so im2col is
// a few memcpy per output pixel:
//   cols  [P, K]   P = b·OH·OW output pixels of a chunk of b images, K = KH·KW·C, columns
//                  (i, j, c): the input x[n, oy·sh − ph + i·dh, ox·sw − pw + j·dw, c] (0 outside)
//   dWᵀ   [K, O]  += colsᵀ · grad_out_chunk [P, O]                       (backward weights)
//   dcols [P, K]   = grad_out_chunk [P, O] · W_ohwi [O, K], then col2im   (backward data)
// Each thread takes whole chunks of images with its own cols buffer (about 1 MiB, so it stays
// in cache between im2col and the GEMM) and runs sequential GEMMs; the weights' gradient is
// summed over the threads' partial products at the end. Buffers come from the MemoryManager's
// cache (scratch_tensor), so a training step allocates no pages.
#include <omp.h>

#include <algorithm>
#include <cstring>
#include <vector>

#include "loops.h"
#include "nn_impl.h"

namespace exadnn::cpu::native {

namespace {

// Bytes of cols per chunk: measured on the CNN's conv2 (N 128, C 32, 12x12, O 64, 5x5) with
// 2 threads: 0.8 MiB (4 images) ran both passes fastest, 1.6 and 3.2 MiB 10-25 % slower.
constexpr int64_t kChunkBytes = int64_t{1} << 20;

struct Plan {
  int64_t taps_c;  // K = kh·kw·c, the columns of cols
  int64_t pixels;  // oh·ow, output pixels per image
  int64_t chunk;   // images per chunk
  int64_t chunks;
};

Plan plan(const Conv2dGeometry& g, int threads) {
  Plan p;
  p.taps_c = g.kh * g.kw * g.c;
  p.pixels = g.oh * g.ow;
  const int64_t per_image = std::max<int64_t>(p.pixels * p.taps_c * 4, 1);
  const int64_t fill_threads = (g.n + threads - 1) / std::max(threads, 1);  // every thread busy
  p.chunk = std::clamp<int64_t>(std::min(kChunkBytes / per_image, fill_threads), 1,
                                std::max<int64_t>(g.n, 1));
  p.chunks = (g.n + p.chunk - 1) / p.chunk;
  return p;
}

// The input row of output row oy for kernel row i (may be outside the image), and likewise for
// columns.
int64_t input_row(const Conv2dGeometry& g, int64_t oy, int64_t i) {
  return oy * g.stride_h - g.pad_h + i * g.dilation_h;
}
int64_t input_col(const Conv2dGeometry& g, int64_t ox, int64_t j) {
  return ox * g.stride_w - g.pad_w + j * g.dilation_w;
}

// cols [b·OH·OW, K] of images n0..n0+b of x [n, h, w, c].
void im2col(const Conv2dGeometry& g, const Plan& p, const float* x, int64_t n0, int64_t b,
            float* cols) {
  const size_t run = sizeof(float) * static_cast<size_t>(g.c);
  for (int64_t s = 0; s < b; ++s)
    for (int64_t oy = 0; oy < g.oh; ++oy)
      for (int64_t ox = 0; ox < g.ow; ++ox) {
        float* row = cols + ((s * g.oh + oy) * g.ow + ox) * p.taps_c;
        for (int64_t i = 0; i < g.kh; ++i) {
          const int64_t iy = input_row(g, oy, i);
          for (int64_t j = 0; j < g.kw; ++j) {
            float* dst = row + (i * g.kw + j) * g.c;
            const int64_t ix = input_col(g, ox, j);
            if (iy < 0 || iy >= g.h || ix < 0 || ix >= g.w)
              std::memset(dst, 0, run);
            else
              std::memcpy(dst, x + (((n0 + s) * g.h + iy) * g.w + ix) * g.c, run);
          }
        }
      }
}

// grad_x [n, h, w, c] += the adjoint of im2col of dcols, images n0..n0+b (zeroed here first).
void col2im(const Conv2dGeometry& g, const Plan& p, const float* dcols, int64_t n0, int64_t b,
            float* grad_x) {
  float* images = grad_x + n0 * g.h * g.w * g.c;
  std::fill(images, images + b * g.h * g.w * g.c, 0.0f);
  for (int64_t s = 0; s < b; ++s)
    for (int64_t oy = 0; oy < g.oh; ++oy)
      for (int64_t ox = 0; ox < g.ow; ++ox) {
        const float* row = dcols + ((s * g.oh + oy) * g.ow + ox) * p.taps_c;
        for (int64_t i = 0; i < g.kh; ++i) {
          const int64_t iy = input_row(g, oy, i);
          if (iy < 0 || iy >= g.h) continue;
          for (int64_t j = 0; j < g.kw; ++j) {
            const int64_t ix = input_col(g, ox, j);
            if (ix < 0 || ix >= g.w) continue;
            const float* src = row + (i * g.kw + j) * g.c;
            float* dst = images + ((s * g.h + iy) * g.w + ix) * g.c;
#pragma omp simd
            for (int64_t c = 0; c < g.c; ++c) dst[c] += src[c];
          }
        }
      }
}

}  // namespace

bool nhwc_im2col_takes(const Conv2dGeometry& g) {
  return g.groups == 1;
}

void conv2d_backward_weights_nhwc(const Conv2dGeometry& g, const float* x, const float* grad_out,
                                  float* grad_weight, float* grad_bias) {
  EXADNN_CHECK(nhwc_im2col_takes(g), "conv2d",
               "the channels-last im2col route takes groups 1, not ", g.groups);
  const int threads = omp_get_max_threads();
  const Plan p = plan(g, threads);
  const int64_t outputs = g.o * p.taps_c, cols_size = p.chunk * p.pixels * p.taps_c;
  // Per thread: its cols [chunk·OH·OW, K], its dWᵀ [K, O] (written once it has taken a chunk)
  // and its bias sums [O].
  const Tensor cols = scratch_tensor({threads, cols_size}, DType::f32);
  const Tensor partial = scratch_tensor({threads, outputs}, DType::f32);
  const float* partials = static_cast<const float*>(partial.data_ptr());
  std::vector<double> bias_sums(static_cast<size_t>(threads * g.o), 0.0);
  std::vector<char> worked(static_cast<size_t>(threads), 0);
  if (p.pixels > 0 && g.n > 0) {
#pragma omp parallel num_threads(threads)
    {
      const int t = omp_get_thread_num();
      float* own_cols = static_cast<float*>(cols.data_ptr()) + t * cols_size;
      float* dwt = static_cast<float*>(partial.data_ptr()) + t * outputs;
      double* bsum = bias_sums.data() + t * g.o;
#pragma omp for schedule(static)
      for (int64_t chunk = 0; chunk < p.chunks; ++chunk) {
        const int64_t n0 = chunk * p.chunk, b = std::min(p.chunk, g.n - n0);
        const float* gout = grad_out + n0 * p.pixels * g.o;  // [b·OH·OW, O]
        if (grad_weight != nullptr) {
          im2col(g, p, x, n0, b, own_cols);
          gemm<float>(true, false, p.taps_c, g.o, b * p.pixels, own_cols, p.taps_c, gout, g.o,
                      worked[static_cast<size_t>(t)] ? 1.0 : 0.0, dwt, g.o);
        }
        worked[static_cast<size_t>(t)] = 1;
        if (grad_bias != nullptr)
          for (int64_t r = 0; r < b * p.pixels; ++r)
            for (int64_t o = 0; o < g.o; ++o) bsum[o] += gout[r * g.o + o];
      }
    }
  }
  // grad_weight [o, c, kh, kw] (OIHW) from the threads' dWᵀ [(i, j, c), o].
  if (grad_weight != nullptr) {
    const int64_t taps = g.kh * g.kw;
#pragma omp parallel for schedule(static) if (outputs * threads >= kParallelGrain)
    for (int64_t o = 0; o < g.o; ++o)
      for (int64_t c = 0; c < g.c; ++c)
        for (int64_t tap = 0; tap < taps; ++tap) {
          float sum = 0.0f;
          for (int t = 0; t < threads; ++t)
            if (worked[static_cast<size_t>(t)])
              sum += partials[t * outputs + (tap * g.c + c) * g.o + o];
          grad_weight[(o * g.c + c) * taps + tap] = sum;
        }
  }
  if (grad_bias != nullptr)
    for (int64_t o = 0; o < g.o; ++o) {
      double sum = 0.0;
      for (int t = 0; t < threads; ++t) sum += bias_sums[static_cast<size_t>(t * g.o + o)];
      grad_bias[o] = static_cast<float>(sum);
    }
}

void conv2d_backward_data_nhwc(const Conv2dGeometry& g, const float* grad_out, const float* weight,
                               float* grad_x) {
  EXADNN_CHECK(nhwc_im2col_takes(g), "conv2d",
               "the channels-last im2col route takes groups 1, not ", g.groups);
  const int threads = omp_get_max_threads();
  const Plan p = plan(g, threads);
  if (p.pixels == 0 || p.taps_c == 0 || g.o == 0) {
    std::fill(grad_x, grad_x + g.n * g.h * g.w * g.c, 0.0f);
    return;
  }
  // The weights as [O, K] with columns (i, j, c) (OHWI), from OIHW.
  const Tensor ohwi = scratch_tensor({g.o, p.taps_c}, DType::f32);
  float* w_ohwi = static_cast<float*>(ohwi.data_ptr());
  const int64_t taps = g.kh * g.kw;
  for (int64_t o = 0; o < g.o; ++o)
    for (int64_t c = 0; c < g.c; ++c)
      for (int64_t tap = 0; tap < taps; ++tap)
        w_ohwi[o * p.taps_c + tap * g.c + c] = weight[(o * g.c + c) * taps + tap];
  // Per thread: its dcols [chunk·OH·OW, K].
  const int64_t dcols_size = p.chunk * p.pixels * p.taps_c;
  const Tensor dcols = scratch_tensor({threads, dcols_size}, DType::f32);
#pragma omp parallel num_threads(threads)
  {
    float* own = static_cast<float*>(dcols.data_ptr()) + omp_get_thread_num() * dcols_size;
#pragma omp for schedule(static)
    for (int64_t chunk = 0; chunk < p.chunks; ++chunk) {
      const int64_t n0 = chunk * p.chunk, b = std::min(p.chunk, g.n - n0);
      gemm<float>(false, false, b * p.pixels, p.taps_c, g.o, grad_out + n0 * p.pixels * g.o, g.o,
                  w_ohwi, p.taps_c, 0.0, own, p.taps_c);
      col2im(g, p, own, n0, b, grad_x);
    }
  }
}

}  // namespace exadnn::cpu::native
