// Bulk f32 <-> f16 / bf16 conversions, vectorised with the best instruction set of the CPU
// (chosen once at run time). Every path gives exactly the bits of the scalar conversions in
// core/half.h (round to nearest even, overflow to Inf, NaN payloads kept as half.h keeps them).
#pragma once

#include <cstdint>

#include "exadnn/core/half.h"

namespace exadnn {

/// Instruction sets the conversions can use, from slowest to fastest.
enum class HalfIsa : uint8_t {
  portable,     ///< scalar loops over half.h (any CPU)
  f16c,         ///< AVX2 + F16C: 8 lanes (vcvtps2ph / vcvtph2ps; bf16 by integer rounding)
  avx512,       ///< AVX-512 F/BW/VL: 16 lanes, masked tails
  avx512_bf16,  ///< avx512 plus AVX512-BF16's vcvtneps2bf16 for f32 -> bf16
};
inline constexpr int kHalfIsaCount = 4;

/// Conversion routines of one instruction set (n elements, no alignment needed, no overlap).
struct HalfConverters {
  HalfIsa isa;
  void (*f32_to_f16)(const float* in, uint16_t* out, int64_t n) noexcept;
  void (*f16_to_f32)(const uint16_t* in, float* out, int64_t n) noexcept;
  void (*f32_to_bf16)(const float* in, uint16_t* out, int64_t n) noexcept;
  void (*bf16_to_f32)(const uint16_t* in, float* out, int64_t n) noexcept;
};

/// "portable", "f16c", "avx512", "avx512_bf16".
const char* half_isa_name(HalfIsa isa) noexcept;
/// Whether this CPU can run `isa`.
bool half_isa_supported(HalfIsa isa) noexcept;
/// The instruction set the bulk conversions use: the best this CPU supports, or the one named by
/// EXADNN_HALF_ISA (an unsupported or unknown name is an Error at first use).
HalfIsa half_isa();
/// The routines of one instruction set (tests and benchmarks compare them); Error if unsupported.
const HalfConverters& half_converters(HalfIsa isa);

/// Bulk conversions through half_isa()'s routines.
void convert(const float* in, Half* out, int64_t n);
void convert(const Half* in, float* out, int64_t n);
void convert(const float* in, BFloat16* out, int64_t n);
void convert(const BFloat16* in, float* out, int64_t n);

}  // namespace exadnn
