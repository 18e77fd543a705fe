// Tests f16/bf16 <-> f32 conversion: exhaustive round trips, ties to even, overflow, NaN,
// subnormals.
#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include "testing.h"

using namespace exadnn;

namespace {

bool is_half_nan(uint16_t h) {
  return (h & 0x7c00u) == 0x7c00u && (h & 0x3ffu) != 0;
}
bool is_bf16_nan(uint16_t b) {
  return (b & 0x7f80u) == 0x7f80u && (b & 0x7fu) != 0;
}
float from_bits(uint32_t b) {
  return std::bit_cast<float>(b);
}
uint32_t bits_of(float f) {
  return std::bit_cast<uint32_t>(f);
}

// Slow reference: the representable 16-bit value nearest to f (ties to the even pattern), found
// by bisection over the sorted non-negative patterns evaluated in double. `values[top]` is the
// first pattern past the largest finite one (infinity), given its unbounded-exponent value so that
// overflow rounds exactly like IEEE 754 does.
class Reference16 {
 public:
  // decode: the (exact) value of a finite pattern; inf_bits: the +inf pattern; inf_as: 2^(emax+1).
  template <class Decode>
  Reference16(Decode decode, uint16_t inf_bits, double inf_as, bool (*is_nan)(uint16_t))
      : inf_bits_(inf_bits), is_nan_(is_nan) {
    for (uint32_t b = 0; b < inf_bits; ++b) values_.push_back(static_cast<double>(decode(b)));
    values_.push_back(inf_as);
  }

  uint16_t convert(float f) const {
    const uint16_t sign = std::signbit(f) ? 0x8000u : 0u;
    if (std::isnan(f)) return 0xffffu;  // any NaN; callers compare NaN-ness only
    const double a = std::fabs(static_cast<double>(f));
    if (a >= values_.back()) return static_cast<uint16_t>(sign | inf_bits_);
    // Largest index with values_[i] <= a.
    const size_t i = static_cast<size_t>(std::upper_bound(values_.begin(), values_.end(), a) -
                                         values_.begin() - 1);
    const double below = a - values_[i], above = values_[i + 1] - a;
    size_t pick = i;
    if (above < below || (above == below && (i & 1u))) pick = i + 1;
    return static_cast<uint16_t>(sign | pick);
  }

  bool is_nan(uint16_t b) const { return is_nan_(b); }

 private:
  std::vector<double> values_;
  uint16_t inf_bits_;
  bool (*is_nan_)(uint16_t);
};

const Reference16& half_reference() {
  static const Reference16 ref(
      [](uint32_t b) { return half_bits_to_float(static_cast<uint16_t>(b)); }, 0x7c00u, 65536.0,
      is_half_nan);
  return ref;
}

const Reference16& bf16_reference() {
  static const Reference16 ref(
      [](uint32_t b) { return bfloat16_bits_to_float(static_cast<uint16_t>(b)); }, 0x7f80u,
      std::ldexp(1.0, 128), is_bf16_nan);
  return ref;
}

// Compares conv(f) with the reference for one float; counts and reports mismatches.
template <class Conv>
void check_against(const Reference16& ref, Conv conv, float f, int64_t& bad, const char* what) {
  const uint16_t expected = ref.convert(f);
  const uint16_t got = conv(f);
  const bool ok = std::isnan(f) ? ref.is_nan(got) : got == expected;
  if (!ok && bad++ < 5)
    ADD_FAILURE() << what << "(" << f << " = 0x" << std::hex << bits_of(f) << ") gave 0x" << got
                  << ", expected 0x" << expected << std::dec;
}

// Millions of floats spanning every exponent (both signs), plus every pattern of the 13 (f16) or
// 16 (bf16) dropped bits that matters for rounding, across the whole exponent range of halves.
template <class Conv>
int64_t sweep(const Reference16& ref, Conv conv, const char* what, int dropped_bits) {
  int64_t bad = 0, checked = 0;
  Generator gen(2024);
  for (uint32_t exponent = 0; exponent < 256; ++exponent) {
    for (uint32_t s = 0; s < 2; ++s) {
      for (int k = 0; k < 6000; ++k) {
        const uint32_t mantissa = static_cast<uint32_t>(gen.bits_at(gen.advance(1))) & 0x7fffffu;
        check_against(ref, conv, from_bits((s << 31) | (exponent << 23) | mantissa), bad, what);
        ++checked;
      }
    }
  }
  // Rounding-critical low bits: 0, 1, half-1, half, half+1, max, for many kept mantissas.
  const uint32_t half = 1u << (dropped_bits - 1), all = (1u << dropped_bits) - 1u;
  const uint32_t lows[] = {0u, 1u, half - 1u, half, half + 1u, all};
  for (uint32_t exponent = 0; exponent < 256; ++exponent) {
    for (uint32_t kept = 0; kept < (0x800000u >> dropped_bits); kept += 7) {
      for (uint32_t low : lows) {
        const uint32_t mantissa = (kept << dropped_bits) | low;
        check_against(ref, conv, from_bits((exponent << 23) | mantissa), bad, what);
        ++checked;
      }
    }
  }
  EXPECT_GT(checked, 3'000'000);
  return bad;
}

}  // namespace

TEST(Half, EveryHalfPatternRoundTripsThroughFloat) {
  int64_t bad = 0;
  for (uint32_t b = 0; b < 65536; ++b) {
    const uint16_t h = static_cast<uint16_t>(b);
    const float f = half_bits_to_float(h);
    const uint16_t back = float_to_half_bits(f);
    if (back != h && bad++ < 5)
      ADD_FAILURE() << std::hex << "0x" << h << " came back as 0x" << back;
    EXPECT_EQ(Half(Half::from_bits(h)).bits, h);
    EXPECT_EQ(std::isnan(f), is_half_nan(h));
  }
  EXPECT_EQ(bad, 0);
}

TEST(Half, EveryBFloat16PatternRoundTripsThroughFloat) {
  int64_t bad = 0;
  for (uint32_t b = 0; b < 65536; ++b) {
    const uint16_t h = static_cast<uint16_t>(b);
    const float f = bfloat16_bits_to_float(h);
    const uint16_t back = float_to_bfloat16_bits(f);
    if (back != h && bad++ < 5)
      ADD_FAILURE() << std::hex << "0x" << h << " came back as 0x" << back;
    EXPECT_EQ(BFloat16(static_cast<float>(BFloat16::from_bits(h))).bits, h);
    EXPECT_EQ(std::isnan(f), is_bf16_nan(h));
  }
  EXPECT_EQ(bad, 0);
}

TEST(Half, KnownValues) {
  static_assert(float_to_half_bits(1.0f) == 0x3c00u, "conversions are usable at compile time");
  static_assert(half_bits_to_float(0x3c00u) == 1.0f);
  static_assert(float_to_bfloat16_bits(1.0f) == 0x3f80u);
  static_assert(Half(2.0f).bits == 0x4000u);
  EXPECT_EQ(float_to_half_bits(1.0f), 0x3c00u);
  EXPECT_EQ(float_to_half_bits(-2.0f), 0xc000u);
  EXPECT_EQ(float_to_half_bits(0.5f), 0x3800u);
  EXPECT_EQ(float_to_half_bits(65504.0f), 0x7bffu);
  EXPECT_EQ(float_to_half_bits(-0.0f), 0x8000u);
  EXPECT_EQ(half_bits_to_float(0x3555u), 0.333251953125f);
  EXPECT_EQ(float_to_bfloat16_bits(1.0f), 0x3f80u);
  EXPECT_EQ(float_to_bfloat16_bits(-3.0f), 0xc040u);
  EXPECT_EQ(bfloat16_bits_to_float(0x4049u), 3.140625f);
  EXPECT_EQ(static_cast<float>(Half(3.0f)), 3.0f);
  EXPECT_EQ(static_cast<float>(BFloat16(-7.5f)), -7.5f);
}

TEST(Half, HalfTiesRoundToEven) {
  // 1 + 2^-11 is the midpoint of 1 (even) and 1 + 2^-10 (odd): goes down.
  EXPECT_EQ(float_to_half_bits(from_bits(0x3f800000u | (1u << 12))), 0x3c00u);
  // 1 + 3*2^-11 is the midpoint of 1 + 2^-10 (odd) and 1 + 2^-9 (even): goes up.
  EXPECT_EQ(float_to_half_bits(from_bits(0x3f800000u | (3u << 12))), 0x3c02u);
  // Just above / below a midpoint follow the nearer neighbour.
  EXPECT_EQ(float_to_half_bits(from_bits(0x3f800000u | (1u << 12) | 1u)), 0x3c01u);
  EXPECT_EQ(float_to_half_bits(from_bits(0x3f800000u | ((3u << 12) - 1u))), 0x3c01u);
  // A tie that carries into the exponent: 2 - 2^-11 lies between 2 - 2^-10 (odd) and 2.
  EXPECT_EQ(float_to_half_bits(from_bits(0x3fffe000u | (1u << 12))), 0x4000u);
  EXPECT_EQ(float_to_half_bits(-from_bits(0x3f800000u | (1u << 12))), 0xbc00u);
}

TEST(Half, BFloat16TiesRoundToEven) {
  EXPECT_EQ(float_to_bfloat16_bits(from_bits(0x3f808000u)), 0x3f80u);  // to even (down)
  EXPECT_EQ(float_to_bfloat16_bits(from_bits(0x3f818000u)), 0x3f82u);  // to even (up)
  EXPECT_EQ(float_to_bfloat16_bits(from_bits(0x3f808001u)), 0x3f81u);  // above the tie
  EXPECT_EQ(float_to_bfloat16_bits(from_bits(0x3f817fffu)), 0x3f81u);  // below the tie
  EXPECT_EQ(float_to_bfloat16_bits(from_bits(0xbf808000u)), 0xbf80u);
  // Largest finite bf16 plus half an ulp ties to even: overflows to +inf.
  EXPECT_EQ(float_to_bfloat16_bits(from_bits(0x7f7f8000u)), 0x7f80u);
  EXPECT_EQ(float_to_bfloat16_bits(from_bits(0x7f7f7fffu)), 0x7f7fu);
}

TEST(Half, OverflowGivesInfinity) {
  EXPECT_EQ(float_to_half_bits(65520.0f), 0x7c00u);  // midpoint to 2^16: ties away to inf
  EXPECT_EQ(float_to_half_bits(65519.0f), 0x7bffu);  // rounds down to 65504
  EXPECT_EQ(half_bits_to_float(float_to_half_bits(65519.0f)), 65504.0f);
  EXPECT_EQ(float_to_half_bits(-65520.0f), 0xfc00u);
  EXPECT_EQ(float_to_half_bits(1e10f), 0x7c00u);
  EXPECT_EQ(float_to_half_bits(std::numeric_limits<float>::max()), 0x7c00u);
  EXPECT_EQ(float_to_half_bits(std::numeric_limits<float>::infinity()), 0x7c00u);
  EXPECT_EQ(float_to_half_bits(-std::numeric_limits<float>::infinity()), 0xfc00u);
  EXPECT_TRUE(std::isinf(static_cast<float>(Half(70000.0f))));
  EXPECT_EQ(float_to_bfloat16_bits(std::numeric_limits<float>::infinity()), 0x7f80u);
  EXPECT_EQ(float_to_bfloat16_bits(std::numeric_limits<float>::max()), 0x7f80u);
}

TEST(Half, NaNStaysNaN) {
  const float qnan = std::numeric_limits<float>::quiet_NaN();
  EXPECT_TRUE(is_half_nan(float_to_half_bits(qnan)));
  EXPECT_TRUE(is_bf16_nan(float_to_bfloat16_bits(qnan)));
  // Payload only in the bits that are dropped: must not collapse to infinity.
  const float low_payload = from_bits(0x7f800001u), neg_low_payload = from_bits(0xff800001u);
  EXPECT_TRUE(is_half_nan(float_to_half_bits(low_payload)));
  EXPECT_TRUE(is_bf16_nan(float_to_bfloat16_bits(low_payload)));
  EXPECT_TRUE(is_half_nan(float_to_half_bits(neg_low_payload)));
  EXPECT_EQ(float_to_half_bits(neg_low_payload) & 0x8000u, 0x8000u);         // sign kept
  EXPECT_TRUE(is_bf16_nan(float_to_bfloat16_bits(from_bits(0x7fffffffu))));  // no carry to inf
  EXPECT_TRUE(std::isnan(static_cast<float>(Half(qnan))));
  EXPECT_TRUE(std::isnan(static_cast<float>(BFloat16(qnan))));
}

TEST(Half, SubnormalHalves) {
  const float tiny = std::ldexp(1.0f, -24);  // smallest half subnormal
  EXPECT_EQ(float_to_half_bits(tiny), 0x0001u);
  EXPECT_EQ(half_bits_to_float(0x0001u), tiny);
  EXPECT_EQ(half_bits_to_float(0x03ffu), std::ldexp(1023.0f, -24));  // largest subnormal
  EXPECT_EQ(half_bits_to_float(0x0400u), std::ldexp(1.0f, -14));     // smallest normal
  EXPECT_EQ(float_to_half_bits(std::ldexp(1.0f, -25)), 0x0000u);     // tie -> even (0)
  EXPECT_EQ(float_to_half_bits(-std::ldexp(1.0f, -25)), 0x8000u);
  EXPECT_EQ(float_to_half_bits(std::ldexp(3.0f, -26)), 0x0001u);  // 0.75 ulp -> 1 ulp
  EXPECT_EQ(float_to_half_bits(std::ldexp(3.0f, -25)), 0x0002u);  // 1.5 ulp ties to 2
  EXPECT_EQ(float_to_half_bits(std::ldexp(5.0f, -25)), 0x0002u);  // 2.5 ulp ties to 2
  EXPECT_EQ(float_to_half_bits(std::nextafter(std::ldexp(1.0f, -25), 1.0f)), 0x0001u);
  EXPECT_EQ(float_to_half_bits(std::ldexp(1.0f, -26)), 0x0000u);
  EXPECT_EQ(float_to_half_bits(std::numeric_limits<float>::denorm_min()), 0x0000u);
  // Largest subnormal + half an ulp (odd) ties up into the smallest normal.
  EXPECT_EQ(float_to_half_bits(std::ldexp(2047.0f, -25)), 0x0400u);
  // bf16 keeps float subnormals.
  EXPECT_EQ(float_to_bfloat16_bits(from_bits(0x00010000u)), 0x0001u);
  EXPECT_EQ(bfloat16_bits_to_float(0x0001u), from_bits(0x00010000u));
}

TEST(Half, FloatToHalfMatchesSlowReference) {
  const int64_t bad = sweep(
      half_reference(), [](float f) { return float_to_half_bits(f); }, "float_to_half_bits", 13);
  EXPECT_EQ(bad, 0);
}

TEST(Half, FloatToBFloat16MatchesSlowReference) {
  const int64_t bad = sweep(
      bf16_reference(), [](float f) { return float_to_bfloat16_bits(f); }, "float_to_bfloat16_bits",
      16);
  EXPECT_EQ(bad, 0);
}
