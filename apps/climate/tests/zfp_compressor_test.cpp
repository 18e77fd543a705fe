// ZFP behind the Compressor interface (zfp_compressor.h) on Galewsky's initial fields at (8, 3):
// the fixed-accuracy bound, fixed-rate sizes and ratios, and refusals.
#include "climate/zfp_compressor.h"

#include <gtest/gtest.h>

#include <cmath>

#include "compress_test_fields.h"

namespace climate {
namespace {

using testing::expect_error;

// Galewsky's initial fields at (8, 3), face size 32, made once.
const testing::GalewskyFields& fields() {
  return testing::galewsky_fields_once(8, 3);
}

TEST(ZfpCompressor, FixedAccuracyKeepsEveryValueWithinTheTolerance) {
  for (const FaceField* f : {&fields().h, &fields().u, &fields().v})
    for (const double tol : {1.0, 1e-3, 1e-9}) {
      const ZfpCompressor c({ZfpParams::Mode::accuracy, tol});
      const FaceField back = c.decompress(c.compress(*f));
      EXPECT_LE(max_abs_error(*f, back), tol) << c.describe();
      EXPECT_GT(max_abs_error(*f, back), 0.0) << c.describe();  // lossy: not a copy
    }
}

TEST(ZfpCompressor, FixedRateSizeIsTheRateAndErrorFallsWithIt) {
  const FaceField& h = fields().h;  // n = 32: 64 blocks of 4 × 4 per face
  double previous = INFINITY;
  for (const double rate : {1.0, 2.0, 4.0, 8.0, 16.0}) {
    const ZfpCompressor c({ZfpParams::Mode::rate, rate});
    const std::vector<std::uint8_t> payload = c.compress(h);
    // 40-byte header, then per face 64 blocks × 16 rate bits (whole 64-bit words here).
    EXPECT_EQ(payload.size(), 40 + 6 * 64 * 16 * rate / 8) << c.describe();
    const double e = rmse(h, c.decompress(payload));
    EXPECT_LT(e, previous) << c.describe();
    previous = e;
  }
}

TEST(ZfpCompressor, PickedRatesReachTheRequestedRatios) {
  for (const FaceField* f : {&fields().h, &fields().u})
    for (const double ratio : {4.0, 16.0, 64.0}) {
      const ZfpCompressor c(ZfpCompressor::pick(ratio, *f));
      const std::vector<std::uint8_t> payload = c.compress(*f);
      EXPECT_GE(compression_ratio(*f, payload.size()), ratio) << c.describe();
      // The next rate step up (1/16 bit more per value) would not fit: the budget is used.
      const ZfpCompressor bigger({ZfpParams::Mode::rate, c.params().value + 1.0 / 16});
      EXPECT_LT(compression_ratio(*f, bigger.compress(*f).size()), ratio) << c.describe();
    }
}

TEST(ZfpCompressor, PickedTolerancesReachTheRequestedRatios) {
  for (const FaceField* f : {&fields().h, &fields().u})
    for (const double ratio : {8.0, 16.0}) {
      const ZfpCompressor c(ZfpCompressor::pick_accuracy(ratio, *f));
      const std::vector<std::uint8_t> payload = c.compress(*f);
      EXPECT_GE(compression_ratio(*f, payload.size()), ratio) << c.describe();
      EXPECT_LE(max_abs_error(*f, c.decompress(payload)), c.params().value) << c.describe();
      // 2 % tighter does not fit: the tolerance is the smallest (to the bisection's 1 %).
      const ZfpCompressor tighter({ZfpParams::Mode::accuracy, c.params().value / 1.02});
      EXPECT_LT(compression_ratio(*f, tighter.compress(*f).size()), ratio) << c.describe();
    }
}

TEST(ZfpCompressor, BadParametersAreRefused) {
  expect_error([] { ZfpCompressor({ZfpParams::Mode::rate, 0}); }, {"rate 0"});
  expect_error([] { ZfpCompressor({ZfpParams::Mode::rate, 65}); }, {"rate 65"});
  expect_error([] { ZfpCompressor({ZfpParams::Mode::accuracy, -1}); }, {"tolerance -1"});
  expect_error([] { ZfpCompressor::pick(5000, fields().h); }, {"ratio 5000", "out of reach"});
}

TEST(ZfpCompressor, BadPayloadsAreRefused) {
  const ZfpCompressor c({ZfpParams::Mode::rate, 4});
  const std::vector<std::uint8_t> good = c.compress(fields().u);
  std::vector<std::uint8_t> cut(good.begin(), good.end() - 8);
  expect_error([&] { c.decompress(cut); }, {"zfp payload", "truncated"});
  expect_error([&] { c.decompress(good.data(), 10); }, {"zfp payload", "truncated"});
  std::vector<std::uint8_t> bad = good;
  bad[4] = 7;  // mode
  expect_error([&] { c.decompress(bad); }, {"zfp payload", "unknown mode 7"});
  bad = good;
  bad[16] ^= 0xff;  // face 0's byte count
  expect_error([&] { c.decompress(bad); }, {"zfp payload"});
}

}  // namespace
}  // namespace climate
