// The vector kernels of exadnn's convolution + 2x2 max pooling loop (native_conv_pool.cpp), for
// one instruction set. native_conv_pool.cpp includes this file once per set, inside a namespace
// of its own, with:
//   EXADNN_CP_TARGET      the functions' target attribute (e.g. arch=x86-64-v4)
//   EXADNN_CP_LANES       floats per vector (16 for AVX-512, 8 for AVX2)
//   EXADNN_CP_PAIRS       pooled outputs per forward block (2 with 32 registers, 1 with 16)
//   EXADNN_CP_WEIGHT_NB   most channel vectors per weights'-gradient block (2, or 1 with 16
//                         registers: kw x NB accumulators must fit beside the operands)
// and Shape4, Strides, PooledOut, PooledGrad, kNoGradient and kMaxKernelWidth declared before.
// No #include here: the file is read inside a namespace.
//
// Every function that touches a vector is built for the target; the helpers are inlined into the
// kernels, so the ABI of passing a vector by value, which GCC warns about, never applies.

constexpr int64_t kLanes = EXADNN_CP_LANES;
typedef float Vf __attribute__((vector_size(kLanes * sizeof(float))));
typedef int32_t Vi __attribute__((vector_size(kLanes * sizeof(int32_t))));

#define EXADNN_CP_INLINE EXADNN_CP_TARGET inline __attribute__((always_inline))

EXADNN_CP_INLINE Vf load(const float* p) {
  Vf v;
  std::memcpy(&v, p, sizeof v);
  return v;
}

// ---- forward --------------------------------------------------------------------------------

// The pooled outputs (py, px + p) for p < PX, channels ch0 .. ch0 + kLanes NB, of one image.
// acc[r][q][k]: conv row 2py + r, conv column 2px + q, channel vector k (bias not yet added).
template <int NB, int PX>
EXADNN_CP_INLINE void conv_pool_block(const Shape4& s, const float* xp, const float* wt,
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
EXADNN_CP_TARGET void conv_pool_image(const Shape4& s, const float* xp, const float* wt,
                                      const float* bias, const PooledOut& dst) {
  constexpr int PX = EXADNN_CP_PAIRS;
  for (int64_t ch0 = 0; ch0 < s.o; ch0 += NB * kLanes)
    for (int64_t py = 0; py < s.ph; ++py) {
      int64_t px = 0;
      for (; px + PX <= s.pw; px += PX) conv_pool_block<NB, PX>(s, xp, wt, bias, py, px, ch0, dst);
      if (px < s.pw) conv_pool_block<NB, 1>(s, xp, wt, bias, py, px, ch0, dst);
    }
}

// The forward kernel for this shape: two channel vectors per block where they divide s.o.
ConvPoolImage* forward_kernel(const Shape4& s) {
  return s.o % (2 * kLanes) == 0 ? &conv_pool_image<2> : &conv_pool_image<1>;
}

// ---- backward: weights ----------------------------------------------------------------------

// The kLanes channels from ch of position (py, px) of the pooled gradient.
EXADNN_CP_INLINE Vf grad_at(const PooledGrad& g, int64_t py, int64_t px, int64_t ch) {
  const float* p = g.grad + g.gs.at(g.n, ch, py, px);
  if (g.gs.c == 1) return load(p);
  Vf v;
  for (int l = 0; l < kLanes; ++l) v[l] = p[l * g.gs.c];
  return v;
}
// Their codes (which window position each pooled value came from).
EXADNN_CP_INLINE Vi code_at(const Shape4& s, const PooledGrad& g, int64_t py, int64_t px,
                            int64_t ch) {
  Vi v;
  std::memcpy(&v, g.codes + (py * s.pw + px) * s.o + ch, sizeof v);
  return v;
}

// dw [c, kh, kw, o] += this image's gradient for the taps (ci, i, 0..KW-1), channels
// ch0 .. + kLanes NB.
template <int NB, int KW>
EXADNN_CP_INLINE void weight_grad_row(const Shape4& s, const float* xp, const PooledGrad& g,
                                      int64_t ci, int64_t i, int64_t ch0, float* dw) {
  Vf acc[KW][NB] = {};
  for (int64_t py = 0; py < s.ph; ++py)
    for (int64_t px = 0; px < s.pw; ++px) {
      Vf grad[NB];
      Vi code[NB];
#pragma GCC unroll 2
      for (int k = 0; k < NB; ++k) {
        grad[k] = grad_at(g, py, px, ch0 + k * kLanes);
        code[k] = code_at(s, g, py, px, ch0 + k * kLanes);
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
EXADNN_CP_TARGET void weight_grad_image(const Shape4& s, const float* xp, const PooledGrad& g,
                                        float* dw, float* db) {
  for (int64_t ch0 = 0; ch0 < s.o; ch0 += NB * kLanes) {
    for (int64_t ci = 0; ci < s.c; ++ci)
      for (int64_t i = 0; i < s.kh; ++i) weight_grad_row<NB, KW>(s, xp, g, ci, i, ch0, dw);
    for (int k = 0; k < NB; ++k) {
      const int64_t ch = ch0 + k * kLanes;
      Vf sum = load(db + ch);
      for (int64_t py = 0; py < s.ph; ++py)
        for (int64_t px = 0; px < s.pw; ++px)
          sum += code_at(s, g, py, px, ch) == kNoGradient ? Vf{} : grad_at(g, py, px, ch);
      std::memcpy(db + ch, &sum, sizeof sum);
    }
  }
}

template <int NB, int... KW>
WeightGradImage* weight_grad_for(int64_t kw, std::integer_sequence<int, KW...>) {
  WeightGradImage* f = nullptr;
  ((kw == KW + 1 ? (f = &weight_grad_image<NB, KW + 1>, 0) : 0), ...);
  return f;
}

// The weights' gradient kernel for this shape (kernel widths 1 .. kMaxKernelWidth).
WeightGradImage* weight_grad_kernel(const Shape4& s) {
  const auto widths = std::make_integer_sequence<int, kMaxKernelWidth>();
  if constexpr (EXADNN_CP_WEIGHT_NB == 2)
    if (s.o % (2 * kLanes) == 0) return weight_grad_for<2>(s.kw, widths);
  return weight_grad_for<1>(s.kw, widths);
}

#undef EXADNN_CP_INLINE
