// Max pooling 2x2, stride 2, no padding, of a channels-last f32 tensor [n, h, w, c] (raw memory):
// the pooling inside the convolution + pooling node when oneDNN's convolution runs channels-last
// (onednn_conv_pool.cpp), in place of oneDNN's pooling primitives. Each pooled pixel's c values
// are one contiguous run, as are the four input pixels of its window, so the loops over channels
// are unit-stride and vectorise (built for AVX-512, AVX2 and the baseline).
//
// The value kept is the window's first maximum in row-major order (the first NaN when there is
// one), as exadnn's other pooling loops and oneDNN choose it; codes [n, ph, pw, c] hold its
// position, 0..3 = (0,0), (0,1), (1,0), (1,1). Rows and columns past 2 ph, 2 pw (odd h or w) are
// never read; their gradient is zero.
#include <omp.h>

#include <algorithm>

#include "loops.h"
#include "nn_impl.h"
#include "vector_clones.h"

namespace exadnn::cpu::native {

namespace {

// The pooled pixel of one window: a, b the window's top row pixels, c, d its bottom row's.
EXADNN_VECTOR_CLONES void pool_pixel(const float* __restrict a, const float* __restrict b,
                                     const float* __restrict c, const float* __restrict d,
                                     int64_t channels, float* __restrict dst,
                                     uint8_t* __restrict codes) {
  for (int64_t ch = 0; ch < channels; ++ch) {
    float m = a[ch];
    uint8_t code = 0;
    const float v1 = b[ch], v2 = c[ch], v3 = d[ch];
    const bool t1 = v1 > m || (v1 != v1 && m == m);  // larger, or the first NaN
    m = t1 ? v1 : m;
    code = t1 ? 1 : code;
    const bool t2 = v2 > m || (v2 != v2 && m == m);
    m = t2 ? v2 : m;
    code = t2 ? 2 : code;
    const bool t3 = v3 > m || (v3 != v3 && m == m);
    m = t3 ? v3 : m;
    code = t3 ? 3 : code;
    dst[ch] = m;
    codes[ch] = code;
  }
}

// The gradient of one window's four input pixels from its pooled gradient g.
EXADNN_VECTOR_CLONES void unpool_pixel(const float* __restrict g, const uint8_t* __restrict codes,
                                       int64_t channels, float* __restrict a, float* __restrict b,
                                       float* __restrict c, float* __restrict d) {
  for (int64_t ch = 0; ch < channels; ++ch) {
    const float v = g[ch];
    const uint8_t code = codes[ch];
    a[ch] = code == 0 ? v : 0.0f;
    b[ch] = code == 1 ? v : 0.0f;
    c[ch] = code == 2 ? v : 0.0f;
    d[ch] = code == 3 ? v : 0.0f;
  }
}

}  // namespace

void max_pool_2x2_nhwc(const Pool2dGeometry& g, const float* src, float* dst, uint8_t* codes) {
  const int64_t c = g.c, rows = g.n * g.oh;
#pragma omp parallel for schedule(static) if (rows * g.ow * c >= kParallelGrain)
  for (int64_t r = 0; r < rows; ++r) {
    const int64_t n = r / g.oh, py = r % g.oh;
    const float* top = src + ((n * g.h + 2 * py) * g.w) * c;
    const float* bottom = top + g.w * c;
    for (int64_t px = 0; px < g.ow; ++px) {
      const int64_t at = (r * g.ow + px) * c;
      pool_pixel(top + 2 * px * c, top + (2 * px + 1) * c, bottom + 2 * px * c,
                 bottom + (2 * px + 1) * c, c, dst + at, codes + at);
    }
  }
}

void max_pool_2x2_nhwc_backward(const Pool2dGeometry& g, const float* grad, const uint8_t* codes,
                                float* grad_src) {
  const int64_t c = g.c, rows = g.n * g.oh;
  if (g.h != 2 * g.oh || g.w != 2 * g.ow)  // rows or columns no window reads
    std::fill(grad_src, grad_src + g.n * g.h * g.w * c, 0.0f);
#pragma omp parallel for schedule(static) if (rows * g.ow * c >= kParallelGrain)
  for (int64_t r = 0; r < rows; ++r) {
    const int64_t n = r / g.oh, py = r % g.oh;
    float* top = grad_src + ((n * g.h + 2 * py) * g.w) * c;
    float* bottom = top + g.w * c;
    for (int64_t px = 0; px < g.ow; ++px) {
      const int64_t at = (r * g.ow + px) * c;
      unpool_pixel(grad + at, codes + at, c, top + 2 * px * c, top + (2 * px + 1) * c,
                   bottom + 2 * px * c, bottom + (2 * px + 1) * c);
    }
  }
}

}  // namespace exadnn::cpu::native
