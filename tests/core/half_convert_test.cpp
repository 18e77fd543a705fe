// Tests the bulk f32 <-> f16/bf16 conversions of every instruction set this CPU runs against the
// scalar conversions of core/half.h (which half_test.cpp checks against a slow reference): the
// same bits for all 65 536 16-bit patterns, for random and rounding-critical floats, NaNs with
// every kind of payload, subnormals, overflow, at every tail length and misalignment.
#include <bit>
#include <cstdint>
#include <cstring>
#include <limits>
#include <vector>

#include "exadnn/core/half_convert.h"
#include "testing.h"

using namespace exadnn;

namespace {

std::vector<HalfIsa> supported_isas() {
  std::vector<HalfIsa> isas;
  for (int i = 0; i < kHalfIsaCount; ++i)
    if (half_isa_supported(static_cast<HalfIsa>(i))) isas.push_back(static_cast<HalfIsa>(i));
  return isas;
}

// Floats that stress the conversions: random bit patterns over every exponent, every
// rounding-critical low-bit pattern for f16 (13 dropped bits) and bf16 (16), NaNs, infinities,
// zeros, f32 subnormals, the f16 overflow and subnormal boundaries.
std::vector<float> hard_floats() {
  std::vector<uint32_t> bits;
  Generator gen(77);
  for (int i = 0; i < 1'000'000; ++i)
    bits.push_back(static_cast<uint32_t>(gen.bits_at(gen.advance(1))));
  for (uint32_t exponent = 0; exponent < 256; ++exponent)
    for (uint32_t kept = 0; kept < 1024; kept += 37)
      for (int dropped : {13, 16})
        for (uint32_t low : {0u, 1u, (1u << (dropped - 1)) - 1u, 1u << (dropped - 1),
                             (1u << (dropped - 1)) + 1u, (1u << dropped) - 1u})
          for (uint32_t sign : {0u, 0x80000000u})
            bits.push_back(sign | (exponent << 23) | ((kept << dropped) & 0x7fffffu) | low);
  for (uint32_t payload : {1u, 0x1fffu, 0x2000u, 0x200000u, 0x400000u, 0x7fffffu})
    for (uint32_t sign : {0u, 0x80000000u}) bits.push_back(sign | 0x7f800000u | payload);
  for (uint32_t b :
       {0u, 0x80000000u, 0x7f800000u, 0xff800000u, 1u, 0x007fffffu, 0x80000001u,
        std::bit_cast<uint32_t>(65519.0f), std::bit_cast<uint32_t>(65520.0f),
        std::bit_cast<uint32_t>(5.9604645e-8f), std::bit_cast<uint32_t>(2.9802322e-8f)})
    bits.push_back(b);
  std::vector<float> out(bits.size());
  std::memcpy(out.data(), bits.data(), bits.size() * sizeof(float));
  return out;
}

// Runs conv over `in` in chunks of varying length and misalignment, so vector bodies, masked and
// scalar tails all see every value.
template <class In, class Out, class Conv>
std::vector<Out> chunked(const std::vector<In>& in, Conv conv) {
  std::vector<Out> out(in.size());
  size_t i = 0, len = 1;
  while (i < in.size()) {
    const size_t n = std::min(len, in.size() - i);
    conv(in.data() + i, out.data() + i, static_cast<int64_t>(n));
    i += n;
    len = len % 67 + 1;  // 1 .. 67: every tail length of 8- and 16-lane loops
  }
  return out;
}

template <class T>
int64_t count_mismatches(const std::vector<T>& got, const std::vector<T>& want, HalfIsa isa,
                         const char* what) {
  int64_t bad = 0;
  for (size_t i = 0; i < got.size(); ++i) {
    if (std::memcmp(&got[i], &want[i], sizeof(T)) == 0) continue;
    if (bad++ < 5)
      ADD_FAILURE() << half_isa_name(isa) << " " << what << " element " << i << ": got 0x"
                    << std::hex
                    << std::bit_cast<std::conditional_t<sizeof(T) == 4, uint32_t, uint16_t>>(got[i])
                    << ", scalar gives 0x"
                    << std::bit_cast<std::conditional_t<sizeof(T) == 4, uint32_t, uint16_t>>(
                           want[i])
                    << std::dec;
  }
  return bad;
}

}  // namespace

TEST(HalfConvert, DetectsAtLeastThePortablePath) {
  const auto isas = supported_isas();
  ASSERT_FALSE(isas.empty());
  EXPECT_EQ(isas.front(), HalfIsa::portable);
  EXPECT_TRUE(half_isa_supported(half_isa()));
  EXPECT_EQ(half_converters(half_isa()).isa, half_isa());
  std::cout << "[          ] conversion paths on this CPU:";
  for (HalfIsa isa : isas) std::cout << " " << half_isa_name(isa);
  std::cout << " (in use: " << half_isa_name(half_isa()) << ")\n";
}

TEST(HalfConvert, EverySixteenBitPatternWidensLikeTheScalarCode) {
  std::vector<uint16_t> patterns(65536);
  for (uint32_t b = 0; b < 65536; ++b) patterns[b] = static_cast<uint16_t>(b);
  std::vector<float> want_h(65536), want_b(65536);
  for (uint32_t b = 0; b < 65536; ++b) {
    want_h[b] = half_bits_to_float(patterns[b]);
    want_b[b] = bfloat16_bits_to_float(patterns[b]);
  }
  for (HalfIsa isa : supported_isas()) {
    const HalfConverters& c = half_converters(isa);
    EXPECT_EQ(
        count_mismatches(chunked<uint16_t, float>(patterns, c.f16_to_f32), want_h, isa, "f16->f32"),
        0);
    EXPECT_EQ(count_mismatches(chunked<uint16_t, float>(patterns, c.bf16_to_f32), want_b, isa,
                               "bf16->f32"),
              0);
  }
}

TEST(HalfConvert, EverySixteenBitPatternRoundTrips) {
  std::vector<uint16_t> patterns(65536);
  for (uint32_t b = 0; b < 65536; ++b) patterns[b] = static_cast<uint16_t>(b);
  for (HalfIsa isa : supported_isas()) {
    const HalfConverters& c = half_converters(isa);
    const auto h =
        chunked<float, uint16_t>(chunked<uint16_t, float>(patterns, c.f16_to_f32), c.f32_to_f16);
    const auto b =
        chunked<float, uint16_t>(chunked<uint16_t, float>(patterns, c.bf16_to_f32), c.f32_to_bf16);
    EXPECT_EQ(count_mismatches(h, patterns, isa, "f16 round trip"), 0);
    EXPECT_EQ(count_mismatches(b, patterns, isa, "bf16 round trip"), 0);
  }
}

TEST(HalfConvert, FloatsNarrowLikeTheScalarCode) {
  const std::vector<float> in = hard_floats();
  std::vector<uint16_t> want_h(in.size()), want_b(in.size());
  for (size_t i = 0; i < in.size(); ++i) {
    want_h[i] = float_to_half_bits(in[i]);
    want_b[i] = float_to_bfloat16_bits(in[i]);
  }
  for (HalfIsa isa : supported_isas()) {
    const HalfConverters& c = half_converters(isa);
    EXPECT_EQ(count_mismatches(chunked<float, uint16_t>(in, c.f32_to_f16), want_h, isa, "f32->f16"),
              0);
    EXPECT_EQ(
        count_mismatches(chunked<float, uint16_t>(in, c.f32_to_bf16), want_b, isa, "f32->bf16"), 0);
  }
}

TEST(HalfConvert, TiesOverflowAndNaNInTheVectorBody) {
  // 16 values (one full AVX-512 vector, two F16C vectors) per case.
  const float tie_down = std::bit_cast<float>(0x3f800000u | (1u << 12));  // 1 + 2^-11 -> 1
  const float tie_up = std::bit_cast<float>(0x3f800000u | (3u << 12));    // -> 1 + 2^-9
  const float nan = std::numeric_limits<float>::quiet_NaN();
  for (HalfIsa isa : supported_isas()) {
    const HalfConverters& c = half_converters(isa);
    std::vector<float> in(16, tie_down);
    in[3] = tie_up;
    in[5] = 65520.0f;
    in[6] = -1e10f;
    in[9] = nan;
    std::vector<uint16_t> h(16), b(16);
    c.f32_to_f16(in.data(), h.data(), 16);
    c.f32_to_bf16(in.data(), b.data(), 16);
    EXPECT_EQ(h[0], 0x3c00u) << half_isa_name(isa);
    EXPECT_EQ(h[3], 0x3c02u) << half_isa_name(isa);
    EXPECT_EQ(h[5], 0x7c00u) << half_isa_name(isa);
    EXPECT_EQ(h[6], 0xfc00u) << half_isa_name(isa);
    EXPECT_EQ(h[9] & 0x7c00u, 0x7c00u);
    EXPECT_NE(h[9] & 0x3ffu, 0u) << half_isa_name(isa) << ": NaN stays NaN";
    EXPECT_EQ(b[9] & 0x7f80u, 0x7f80u);
    EXPECT_NE(b[9] & 0x7fu, 0u) << half_isa_name(isa) << ": NaN stays NaN";
  }
}

TEST(HalfConvert, CastOpUsesTheSameBits) {
  const std::vector<float> in = hard_floats();
  const Tensor src = from_vector(in, {static_cast<int64_t>(in.size())});
  for (DType dt : {DType::f16, DType::bf16}) {
    const Tensor narrow = src.to(dt);
    const Tensor wide = narrow.to(DType::f32);
    const auto* n16 = static_cast<const uint16_t*>(narrow.data_ptr());
    const auto* w32 = static_cast<const float*>(wide.data_ptr());
    int64_t bad = 0;
    for (size_t i = 0; i < in.size(); ++i) {
      const uint16_t want =
          dt == DType::f16 ? float_to_half_bits(in[i]) : float_to_bfloat16_bits(in[i]);
      const float back = dt == DType::f16 ? half_bits_to_float(want) : bfloat16_bits_to_float(want);
      if ((n16[i] != want || std::bit_cast<uint32_t>(w32[i]) != std::bit_cast<uint32_t>(back)) &&
          bad++ < 5)
        ADD_FAILURE() << dtype_name(dt) << " element " << i;
    }
    EXPECT_EQ(bad, 0);
    // A strided source takes the element loop and gives the same bits.
    const Tensor strided = src.narrow(0, 0, 1000).reshape({10, 100}).t().to(dt);  // [100, 10]
    const auto* s16 = static_cast<const uint16_t*>(strided.contiguous().data_ptr());
    for (int64_t i = 0; i < 100; ++i)
      for (int64_t j = 0; j < 10; ++j) {
        const float f = in[static_cast<size_t>(j * 100 + i)];
        EXPECT_EQ(s16[i * 10 + j],
                  dt == DType::f16 ? float_to_half_bits(f) : float_to_bfloat16_bits(f));
      }
  }
}
