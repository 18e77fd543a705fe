// 16-bit floating-point storage types: IEEE binary16 (Half) and bfloat16 (BFloat16).
// Conversions from float round to nearest, ties to even; NaN payloads and Inf are preserved,
// so every 16-bit pattern survives a round trip through float unchanged.
#pragma once

#include <bit>
#include <cstdint>

namespace exadnn {

/// float -> IEEE half bits, round-to-nearest-even, overflow to Inf, NaN kept NaN.
constexpr uint16_t float_to_half_bits(float f) noexcept {
  const uint32_t x = std::bit_cast<uint32_t>(f);
  const uint32_t sign = (x >> 16) & 0x8000u;
  const uint32_t ax = x & 0x7fffffffu;
  if (ax >= 0x7f800000u) {  // Inf or NaN
    if (ax == 0x7f800000u) return static_cast<uint16_t>(sign | 0x7c00u);
    uint32_t payload = (ax >> 13) & 0x3ffu;
    if (payload == 0) payload = 0x200u;  // keep it a NaN when the payload sits in the low bits
    return static_cast<uint16_t>(sign | 0x7c00u | payload);
  }
  const int32_t exponent = static_cast<int32_t>(ax >> 23) - 127 + 15;  // half's biased exponent
  if (exponent >= 31) return static_cast<uint16_t>(sign | 0x7c00u);    // |f| >= 2^16: Inf
  uint32_t mantissa = (ax & 0x7fffffu) | 0x800000u;                    // 24 significant bits
  uint32_t shift = 13;
  uint32_t base = 0;
  if (exponent >= 1) {
    base = static_cast<uint32_t>(exponent) << 10;
    mantissa &= 0x7fffffu;  // the implicit bit lives in the exponent field
  } else {
    shift = static_cast<uint32_t>(14 - exponent);  // subnormal half: units of 2^-24
    if (shift > 24) return static_cast<uint16_t>(sign);
  }
  uint32_t h = base | (mantissa >> shift);
  const uint32_t rest = mantissa & ((1u << shift) - 1u);
  const uint32_t halfway = 1u << (shift - 1u);
  if (rest > halfway || (rest == halfway && (h & 1u))) ++h;  // a carry moves into the exponent
  return static_cast<uint16_t>(sign | h);
}

/// IEEE half bits -> float (exact).
constexpr float half_bits_to_float(uint16_t h) noexcept {
  const uint32_t sign = static_cast<uint32_t>(h & 0x8000u) << 16;
  const uint32_t exponent = (h >> 10) & 0x1fu;
  uint32_t mantissa = h & 0x3ffu;
  if (exponent == 0x1fu) return std::bit_cast<float>(sign | 0x7f800000u | (mantissa << 13));
  if (exponent == 0) {
    if (mantissa == 0) return std::bit_cast<float>(sign);
    int32_t e = 1;  // normalise the subnormal
    while ((mantissa & 0x400u) == 0) {
      mantissa <<= 1;
      --e;
    }
    mantissa &= 0x3ffu;
    return std::bit_cast<float>(sign | (static_cast<uint32_t>(e - 15 + 127) << 23) |
                                (mantissa << 13));
  }
  return std::bit_cast<float>(sign | ((exponent - 15 + 127) << 23) | (mantissa << 13));
}

/// float -> bfloat16 bits, round-to-nearest-even, NaN kept NaN.
constexpr uint16_t float_to_bfloat16_bits(float f) noexcept {
  const uint32_t x = std::bit_cast<uint32_t>(f);
  if ((x & 0x7fffffffu) > 0x7f800000u) {
    uint32_t top = x >> 16;
    if ((top & 0x7fu) == 0) top |= 0x40u;  // payload only in the dropped bits: keep it NaN
    return static_cast<uint16_t>(top);
  }
  const uint32_t rounding = 0x7fffu + ((x >> 16) & 1u);
  return static_cast<uint16_t>((x + rounding) >> 16);
}

/// bfloat16 bits -> float (exact).
constexpr float bfloat16_bits_to_float(uint16_t b) noexcept {
  return std::bit_cast<float>(static_cast<uint32_t>(b) << 16);
}

/// IEEE 754 binary16 storage type; arithmetic happens in float.
struct Half {
  uint16_t bits = 0;
  constexpr Half() = default;
  constexpr Half(float f) noexcept : bits(float_to_half_bits(f)) {}  // NOLINT: implicit by design
  static constexpr Half from_bits(uint16_t b) noexcept {
    Half h;
    h.bits = b;
    return h;
  }
  constexpr operator float() const noexcept { return half_bits_to_float(bits); }
};

/// bfloat16 storage type (8-bit exponent, 7-bit mantissa); arithmetic happens in float.
struct BFloat16 {
  uint16_t bits = 0;
  constexpr BFloat16() = default;
  constexpr BFloat16(float f) noexcept : bits(float_to_bfloat16_bits(f)) {}  // NOLINT
  static constexpr BFloat16 from_bits(uint16_t b) noexcept {
    BFloat16 h;
    h.bits = b;
    return h;
  }
  constexpr operator float() const noexcept { return bfloat16_bits_to_float(bits); }
};

}  // namespace exadnn
