// Bulk f32 <-> f16/bf16 conversions: portable loops, AVX2+F16C, AVX-512 and AVX512-BF16 paths.
//
// The vector paths compile with per-function target attributes, so the library still runs on any
// x86-64; half_isa() picks one with __builtin_cpu_supports. Where an instruction's result can
// differ from half.h's bits, the block holding such a lane is converted by the scalar code:
// vcvtps2ph/vcvtph2ps quiet signalling NaNs (half.h keeps every NaN pattern as it is), and
// vcvtneps2bf16 flushes f32 subnormal inputs to zero and quiets NaNs. Such lanes are rare, so the
// check costs one compare per vector.
#include "exadnn/core/half_convert.h"

#include <algorithm>
#include <cstdlib>
#include <string>

#include "exadnn/core/error.h"

// clang before 16 knows neither "f16c" nor "avx512bf16" in __builtin_cpu_supports: the portable
// code only there (the fuzzing build, clang 14).
#if defined(__x86_64__) && defined(__GNUC__) && !(defined(__clang__) && __clang_major__ < 16)
// GCC 12's AVX-512 intrinsics start from _mm512_undefined_*(), which -Wmaybe-uninitialized
// reports at every inlined call site; the values are always fully written.
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#include <immintrin.h>
#define EXADNN_X86 1
#define EXADNN_TARGET_F16C __attribute__((target("avx2,f16c,fma")))
#define EXADNN_TARGET_AVX512 __attribute__((target("avx2,f16c,fma,avx512f,avx512bw,avx512vl")))
#define EXADNN_TARGET_AVX512BF16 \
  __attribute__((target("avx2,f16c,fma,avx512f,avx512bw,avx512vl,avx512bf16")))
#else
#define EXADNN_X86 0
#endif

namespace exadnn {

namespace {

// --- portable: the definitions of the bits ----------------------------------------------------

void f32_to_f16_portable(const float* in, uint16_t* out, int64_t n) noexcept {
  for (int64_t i = 0; i < n; ++i) out[i] = float_to_half_bits(in[i]);
}
void f16_to_f32_portable(const uint16_t* in, float* out, int64_t n) noexcept {
  for (int64_t i = 0; i < n; ++i) out[i] = half_bits_to_float(in[i]);
}
void f32_to_bf16_portable(const float* in, uint16_t* out, int64_t n) noexcept {
  for (int64_t i = 0; i < n; ++i) out[i] = float_to_bfloat16_bits(in[i]);
}
void bf16_to_f32_portable(const uint16_t* in, float* out, int64_t n) noexcept {
  for (int64_t i = 0; i < n; ++i) out[i] = bfloat16_bits_to_float(in[i]);
}

#if EXADNN_X86

constexpr int kRound = _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC;

// --- AVX2 + F16C: 8 lanes, scalar tail ----------------------------------------------------------

EXADNN_TARGET_F16C void f32_to_f16_f16c(const float* in, uint16_t* out, int64_t n) noexcept {
  const __m256i abs = _mm256_set1_epi32(0x7fffffff), inf = _mm256_set1_epi32(0x7f800000);
  int64_t i = 0;
  for (; i + 8 <= n; i += 8) {
    const __m256 x = _mm256_loadu_ps(in + i);
    const __m256i ax = _mm256_and_si256(_mm256_castps_si256(x), abs);
    if (_mm256_movemask_epi8(_mm256_cmpgt_epi32(ax, inf)) != 0) {  // a NaN
      f32_to_f16_portable(in + i, out + i, 8);
      continue;
    }
    _mm_storeu_si128(reinterpret_cast<__m128i*>(out + i), _mm256_cvtps_ph(x, kRound));
  }
  f32_to_f16_portable(in + i, out + i, n - i);
}

EXADNN_TARGET_F16C void f16_to_f32_f16c(const uint16_t* in, float* out, int64_t n) noexcept {
  const __m128i abs = _mm_set1_epi16(0x7fff), inf = _mm_set1_epi16(0x7c00);
  int64_t i = 0;
  for (; i + 8 <= n; i += 8) {
    const __m128i h = _mm_loadu_si128(reinterpret_cast<const __m128i*>(in + i));
    if (_mm_movemask_epi8(_mm_cmpgt_epi16(_mm_and_si128(h, abs), inf)) != 0) {  // a NaN
      f16_to_f32_portable(in + i, out + i, 8);
      continue;
    }
    _mm256_storeu_ps(out + i, _mm256_cvtph_ps(h));
  }
  f16_to_f32_portable(in + i, out + i, n - i);
}

// bf16 = round-to-nearest-even of the top 16 bits, in integer arithmetic (NaN blocks: scalar).
EXADNN_TARGET_F16C void f32_to_bf16_avx2(const float* in, uint16_t* out, int64_t n) noexcept {
  const __m256i abs = _mm256_set1_epi32(0x7fffffff), inf = _mm256_set1_epi32(0x7f800000);
  const __m256i bias = _mm256_set1_epi32(0x7fff), one = _mm256_set1_epi32(1);
  int64_t i = 0;
  for (; i + 8 <= n; i += 8) {
    const __m256i x = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(in + i));
    if (_mm256_movemask_epi8(_mm256_cmpgt_epi32(_mm256_and_si256(x, abs), inf)) != 0) {
      f32_to_bf16_portable(in + i, out + i, 8);
      continue;
    }
    const __m256i odd = _mm256_and_si256(_mm256_srli_epi32(x, 16), one);
    const __m256i r = _mm256_srli_epi32(_mm256_add_epi32(x, _mm256_add_epi32(bias, odd)), 16);
    const __m256i packed = _mm256_permute4x64_epi64(_mm256_packus_epi32(r, r), 0x08);
    _mm_storeu_si128(reinterpret_cast<__m128i*>(out + i), _mm256_castsi256_si128(packed));
  }
  f32_to_bf16_portable(in + i, out + i, n - i);
}

EXADNN_TARGET_F16C void bf16_to_f32_avx2(const uint16_t* in, float* out, int64_t n) noexcept {
  int64_t i = 0;
  for (; i + 8 <= n; i += 8) {
    const __m128i h = _mm_loadu_si128(reinterpret_cast<const __m128i*>(in + i));
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(out + i),
                        _mm256_slli_epi32(_mm256_cvtepu16_epi32(h), 16));
  }
  bf16_to_f32_portable(in + i, out + i, n - i);
}

// --- AVX-512: 16 lanes, masked tails -----------------------------------------------------------

EXADNN_TARGET_AVX512 inline __mmask16 lanes(int64_t remaining) {
  return remaining >= 16 ? __mmask16(0xffff) : static_cast<__mmask16>((1u << remaining) - 1u);
}

// Mask of the lanes holding a NaN f32.
EXADNN_TARGET_AVX512 inline __mmask16 nan_lanes(__m512i x, __mmask16 m) {
  const __m512i ax = _mm512_and_si512(x, _mm512_set1_epi32(0x7fffffff));
  return _mm512_mask_cmpgt_epi32_mask(m, ax, _mm512_set1_epi32(0x7f800000));
}

EXADNN_TARGET_AVX512 void f32_to_f16_avx512(const float* in, uint16_t* out, int64_t n) noexcept {
  for (int64_t i = 0; i < n; i += 16) {
    const __mmask16 m = lanes(n - i);
    const __m512 x = _mm512_maskz_loadu_ps(m, in + i);
    if (nan_lanes(_mm512_castps_si512(x), m) != 0) {
      f32_to_f16_portable(in + i, out + i, std::min<int64_t>(16, n - i));
      continue;
    }
    _mm256_mask_storeu_epi16(out + i, m, _mm512_cvtps_ph(x, kRound));
  }
}

EXADNN_TARGET_AVX512 void f16_to_f32_avx512(const uint16_t* in, float* out, int64_t n) noexcept {
  const __m256i abs = _mm256_set1_epi16(0x7fff), inf = _mm256_set1_epi16(0x7c00);
  for (int64_t i = 0; i < n; i += 16) {
    const __mmask16 m = lanes(n - i);
    const __m256i h = _mm256_maskz_loadu_epi16(m, in + i);
    if (_mm256_mask_cmpgt_epi16_mask(m, _mm256_and_si256(h, abs), inf) != 0) {
      f16_to_f32_portable(in + i, out + i, std::min<int64_t>(16, n - i));
      continue;
    }
    _mm512_mask_storeu_ps(out + i, m, _mm512_cvtph_ps(h));
  }
}

EXADNN_TARGET_AVX512 void f32_to_bf16_avx512(const float* in, uint16_t* out, int64_t n) noexcept {
  const __m512i bias = _mm512_set1_epi32(0x7fff), one = _mm512_set1_epi32(1);
  for (int64_t i = 0; i < n; i += 16) {
    const __mmask16 m = lanes(n - i);
    const __m512i x = _mm512_maskz_loadu_epi32(m, in + i);
    if (nan_lanes(x, m) != 0) {
      f32_to_bf16_portable(in + i, out + i, std::min<int64_t>(16, n - i));
      continue;
    }
    const __m512i odd = _mm512_and_si512(_mm512_srli_epi32(x, 16), one);
    const __m512i r = _mm512_srli_epi32(_mm512_add_epi32(x, _mm512_add_epi32(bias, odd)), 16);
    _mm512_mask_cvtepi32_storeu_epi16(out + i, m, r);
  }
}

EXADNN_TARGET_AVX512 void bf16_to_f32_avx512(const uint16_t* in, float* out, int64_t n) noexcept {
  for (int64_t i = 0; i < n; i += 16) {
    const __mmask16 m = lanes(n - i);
    const __m256i h = _mm256_maskz_loadu_epi16(m, in + i);
    _mm512_mask_storeu_epi32(out + i, m, _mm512_slli_epi32(_mm512_cvtepu16_epi32(h), 16));
  }
}

// vcvtneps2bf16; lanes holding a NaN or a nonzero f32 subnormal go to the scalar code.
EXADNN_TARGET_AVX512BF16 void f32_to_bf16_avx512bf16(const float* in, uint16_t* out,
                                                     int64_t n) noexcept {
  const __m512i abs = _mm512_set1_epi32(0x7fffffff), inf = _mm512_set1_epi32(0x7f800000);
  const __m512i min_normal = _mm512_set1_epi32(0x00800000), zero = _mm512_setzero_si512();
  for (int64_t i = 0; i < n; i += 16) {
    const __mmask16 m = lanes(n - i);
    const __m512 x = _mm512_maskz_loadu_ps(m, in + i);
    const __m512i ax = _mm512_and_si512(_mm512_castps_si512(x), abs);
    const __mmask16 special = _mm512_mask_cmpgt_epi32_mask(m, ax, inf) |
                              (_mm512_mask_cmplt_epi32_mask(m, ax, min_normal) &
                               _mm512_mask_cmpneq_epi32_mask(m, ax, zero));
    if (special != 0) {
      f32_to_bf16_portable(in + i, out + i, std::min<int64_t>(16, n - i));
      continue;
    }
    const __m256bh r = _mm512_cvtneps_pbh(x);
    _mm256_mask_storeu_epi16(out + i, m, reinterpret_cast<const __m256i&>(r));
  }
}

#endif  // EXADNN_X86

constexpr HalfConverters kPortable{HalfIsa::portable, f32_to_f16_portable, f16_to_f32_portable,
                                   f32_to_bf16_portable, bf16_to_f32_portable};
#if EXADNN_X86
constexpr HalfConverters kF16c{HalfIsa::f16c, f32_to_f16_f16c, f16_to_f32_f16c, f32_to_bf16_avx2,
                               bf16_to_f32_avx2};
constexpr HalfConverters kAvx512{HalfIsa::avx512, f32_to_f16_avx512, f16_to_f32_avx512,
                                 f32_to_bf16_avx512, bf16_to_f32_avx512};
constexpr HalfConverters kAvx512Bf16{HalfIsa::avx512_bf16, f32_to_f16_avx512, f16_to_f32_avx512,
                                     f32_to_bf16_avx512bf16, bf16_to_f32_avx512};
#endif

HalfIsa choose_isa() {
  const char* env = std::getenv("EXADNN_HALF_ISA");
  if (env != nullptr && *env != '\0') {
    for (int i = 0; i < kHalfIsaCount; ++i) {
      const auto isa = static_cast<HalfIsa>(i);
      if (std::string(env) != half_isa_name(isa)) continue;
      EXADNN_CHECK(half_isa_supported(isa), "EXADNN_HALF_ISA", "this CPU cannot run '", env, "'");
      return isa;
    }
    throw Error(
        "EXADNN_HALF_ISA",
        detail::cat("unknown value '", env, "'; expected portable, f16c, avx512 or avx512_bf16"));
  }
  for (int i = kHalfIsaCount - 1; i > 0; --i)
    if (half_isa_supported(static_cast<HalfIsa>(i))) return static_cast<HalfIsa>(i);
  return HalfIsa::portable;
}

const HalfConverters& active() {
  static const HalfConverters& converters = half_converters(half_isa());
  return converters;
}

}  // namespace

const char* half_isa_name(HalfIsa isa) noexcept {
  switch (isa) {
    case HalfIsa::portable:
      return "portable";
    case HalfIsa::f16c:
      return "f16c";
    case HalfIsa::avx512:
      return "avx512";
    case HalfIsa::avx512_bf16:
      return "avx512_bf16";
  }
  return "?";
}

bool half_isa_supported(HalfIsa isa) noexcept {
#if EXADNN_X86
  __builtin_cpu_init();
  const bool f16c = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("f16c") &&
                    __builtin_cpu_supports("fma");
  const bool avx512 = f16c && __builtin_cpu_supports("avx512f") &&
                      __builtin_cpu_supports("avx512bw") && __builtin_cpu_supports("avx512vl");
  switch (isa) {
    case HalfIsa::portable:
      return true;
    case HalfIsa::f16c:
      return f16c;
    case HalfIsa::avx512:
      return avx512;
    case HalfIsa::avx512_bf16:
      return avx512 && __builtin_cpu_supports("avx512bf16");
  }
  return false;
#else
  return isa == HalfIsa::portable;
#endif
}

HalfIsa half_isa() {
  static const HalfIsa isa = choose_isa();
  return isa;
}

const HalfConverters& half_converters(HalfIsa isa) {
  EXADNN_CHECK(half_isa_supported(isa), "half_converters", "this CPU cannot run '",
               half_isa_name(isa), "'");
  switch (isa) {
#if EXADNN_X86
    case HalfIsa::f16c:
      return kF16c;
    case HalfIsa::avx512:
      return kAvx512;
    case HalfIsa::avx512_bf16:
      return kAvx512Bf16;
#endif
    default:
      return kPortable;
  }
}

void convert(const float* in, Half* out, int64_t n) {
  active().f32_to_f16(in, reinterpret_cast<uint16_t*>(out), n);
}
void convert(const Half* in, float* out, int64_t n) {
  active().f16_to_f32(reinterpret_cast<const uint16_t*>(in), out, n);
}
void convert(const float* in, BFloat16* out, int64_t n) {
  active().f32_to_bf16(in, reinterpret_cast<uint16_t*>(out), n);
}
void convert(const BFloat16* in, float* out, int64_t n) {
  active().bf16_to_f32(reinterpret_cast<const uint16_t*>(in), out, n);
}

}  // namespace exadnn
