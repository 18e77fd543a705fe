// The blockwise DCT compressor (dct_compressor.h) on Galewsky's initial fields at (8, 3), face
// size 32: exactness with every coefficient, Parseval for the truncation error, error falling
// with k, the ratios the picker reaches, and refusals of bad parameters and payloads.
#include "climate/dct_compressor.h"

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

double max_abs(const FaceField& a) {
  double m = 0;
  for (const double v : a.data) m = std::fmax(m, std::fabs(v));
  return m;
}

TEST(DctCompressor, AllCoefficientsKeptIsExact) {
  for (const FaceField* f : {&fields().h, &fields().u}) {
    const DctCompressor c({8, 8, 64});
    const FaceField back = c.decompress(c.compress(*f));
    EXPECT_LE(max_abs_error(*f, back), 1e-13 * max_abs(*f));
  }
}

// With f64 coefficients the squared error of truncation is the sum of the dropped coefficients'
// squares (orthonormality), computed here block by block with the transform itself.
TEST(DctCompressor, TruncationErrorIsTheDroppedEnergy) {
  const FaceField& h = fields().h;
  const int b = 8, k = 3, nb = h.n / b;
  const BlockDct dct(b);
  double dropped = 0;
  std::vector<double> block(b * b);
  for (int f = 0; f < 6; ++f)
    for (int br = 0; br < nb; ++br)
      for (int bc = 0; bc < nb; ++bc) {
        for (int j = 0; j < b; ++j)
          for (int i = 0; i < b; ++i) block[j * b + i] = h.at(f, br * b + j, bc * b + i);
        dct.forward(block.data(), block.data());
        for (int u = 0; u < b; ++u)
          for (int v = 0; v < b; ++v)
            if (u >= k || v >= k) dropped += block[u * b + v] * block[u * b + v];
      }
  const DctCompressor c({b, k, 64});
  const double e = rmse(h, c.decompress(c.compress(h)));
  EXPECT_NEAR(e * e * h.data.size() / dropped, 1.0, 1e-10);
}

TEST(DctCompressor, ErrorFallsAsKGrows) {
  for (const FaceField* f : {&fields().h, &fields().u, &fields().v}) {
    double previous = INFINITY;
    for (int k = 1; k <= 8; ++k) {
      const DctCompressor c({8, k, 64});
      const double e = rmse(*f, c.decompress(c.compress(*f)));
      EXPECT_LT(e, previous) << "k " << k;
      previous = e;
    }
  }
}

TEST(DctCompressor, QuantisationKeepsTheMeanAndIsBounded) {
  const FaceField& h = fields().h;
  for (const int bits : {4, 8, 16}) {
    const DctCompressor c({8, 8, bits});
    const std::vector<std::uint8_t> payload = c.compress(h);
    EXPECT_EQ(payload.size(), DctCompressor::payload_bytes(h.n, c.params()));
    const FaceField back = c.decompress(payload);
    double mean0 = 0, mean1 = 0;
    for (std::size_t i = 0; i < h.data.size(); ++i) mean0 += h.data[i], mean1 += back.data[i];
    EXPECT_NEAR(mean1 / mean0, 1.0, 1e-14) << bits << " bits";
    // Each of the 63 AC coefficients of a block is off by at most s / (2L), s ≤ max |X| ≤ the
    // block's l2 norm ≤ 8 max |h|; so the block's l2 error ≤ √63 · 8 max|h| / (2L) and the RMSE
    // ≤ that / 8.
    const double levels = std::ldexp(1.0, bits - 1) - 1;
    EXPECT_LE(rmse(h, back), std::sqrt(63.0) * max_abs(h) / (2 * levels)) << bits << " bits";
  }
}

TEST(DctCompressor, PickedParametersReachTheRequestedRatios) {
  for (const FaceField* f : {&fields().h, &fields().u}) {
    double previous_error = 0;
    for (const double ratio : {4.0, 16.0, 64.0}) {
      const DctParams p = DctCompressor::pick(ratio, *f);
      const DctCompressor c(p);
      const std::vector<std::uint8_t> payload = c.compress(*f);
      EXPECT_GE(compression_ratio(*f, payload.size()), ratio) << c.describe();
      const double e = rmse(*f, c.decompress(payload));
      EXPECT_GT(e, previous_error) << c.describe();  // more compression, more error
      previous_error = e;
    }
  }
}

TEST(DctCompressor, UniformStepBoundsEveryCoefficientAndKeepsTheMean) {
  for (const FaceField* f : {&fields().h, &fields().u}) {
    for (const double step : {1e-3, 1e-1, 10.0}) {
      const DctCompressor c({8, 8, 64, step});
      const FaceField back = c.decompress(c.compress(*f));
      // 63 AC coefficients per block off by ≤ Δ/2 each: block l2 error ≤ √63 Δ/2, RMSE ≤ that / 8.
      EXPECT_LE(rmse(*f, back), std::sqrt(63.0) * step / 2 / 8) << c.describe();
      double mean0 = 0, mean1 = 0;
      for (std::size_t i = 0; i < f->data.size(); ++i) mean0 += f->data[i], mean1 += back.data[i];
      EXPECT_NEAR(mean1 / f->data.size(), mean0 / f->data.size(), 1e-12 * max_abs(*f))
          << c.describe();
    }
  }
}

TEST(DctCompressor, UniformStepSpendsNoBitsOnFlatBlocks) {
  FaceField flat(32);
  for (double& v : flat.data) v = 1e4;
  const DctCompressor c({8, 8, 64, 1e-6});
  // 16-byte header, then 6 · 16 blocks of 64 (DC) + 6 (width 0) bits.
  EXPECT_EQ(c.compress(flat).size(), 16u + (6 * 16 * 70 + 7) / 8);
  EXPECT_LE(max_abs_error(c.decompress(c.compress(flat)), flat), 1e-15 * 1e4 * 8);
  expect_error([&] { DctCompressor::payload_bytes(32, c.params()); }, {"depends on the data"});
}

TEST(DctCompressor, PickedStepsReachTheRequestedRatios) {
  for (const FaceField* f : {&fields().h, &fields().u})
    for (const double ratio : {4.0, 16.0, 64.0}) {
      const DctCompressor c(DctCompressor::pick_step(ratio, *f));
      const std::vector<std::uint8_t> payload = c.compress(*f);
      EXPECT_GE(compression_ratio(*f, payload.size()), ratio) << c.describe();
      // 5 % finer does not fit: the step is the smallest for its B and k (to the 2 % bisection).
      // (At 4:1 the finest step the codes allow, 1e-9 of the largest coefficient, fits already.)
      if (ratio == 4) continue;
      DctParams finer = c.params();
      finer.step /= 1.05;
      EXPECT_LT(compression_ratio(*f, DctCompressor(finer).compress(*f).size()), ratio)
          << c.describe();
    }
}

TEST(DctCompressor, BadParametersAreRefused) {
  const FaceField& h = fields().h;
  expect_error(
      [&] {
        DctCompressor({7, 2, 64}).compress(h);
      },
      {"B = 7", "does not divide", "n = 32"});
  expect_error([&] { DctCompressor({8, 9, 64}); }, {"k = 9", "B = 8"});
  expect_error([&] { DctCompressor({8, 2, 40}); }, {"bits q = 40"});
  expect_error([&] { DctCompressor({1, 1, 64}); }, {"B = 1"});
  expect_error([&] { DctCompressor({8, 8, 64, -1}); }, {"step -1"});
  expect_error([&] { DctCompressor({8, 8, 64, 1e-9}).compress(h); }, {"step 1e-09", "too small"});
  expect_error([&] { DctCompressor::pick(1e5, h); }, {"ratio 100000", "out of reach", "n = 32"});
  expect_error([&] { DctCompressor::pick(-1, h); }, {"ratio -1"});
  expect_error([&] { DctCompressor::pick(4, h, 6); }, {"B = 6", "does not divide"});
  // A constant field (Galewsky's v at day 0 is 0 everywhere) tells no parameters apart: the pick
  // used to return the first candidate, B = 4 and k = 1, for every field that followed.
  const FaceField zero(h.n);
  expect_error([&] { DctCompressor::pick(16, zero); }, {"constant", "every value 0"});
  expect_error([&] { DctCompressor::pick_step(16, zero); }, {"constant", "every value 0"});
}

TEST(DctCompressor, BadPayloadsAreRefused) {
  const DctCompressor c({8, 4, 12});
  const std::vector<std::uint8_t> good = c.compress(fields().h);
  std::vector<std::uint8_t> cut(good.begin(), good.end() - 1);
  expect_error([&] { c.decompress(cut); }, {"dct payload", "truncated"});
  expect_error([&] { c.decompress(nullptr, 0); }, {"dct payload", "truncated", "face size"});
  std::vector<std::uint8_t> bad = good;
  bad[5] = 9;  // k > B
  expect_error([&] { c.decompress(bad); }, {"dct payload", "corrupt header", "k = 9"});
  bad = good;
  bad[7] = 2;  // quantisation mode
  expect_error([&] { c.decompress(bad); }, {"dct payload", "quantisation mode 2"});
  const DctCompressor stepped({8, 4, 64, 0.5});
  std::vector<std::uint8_t> more = stepped.compress(fields().h);
  more.push_back(0);
  expect_error([&] { stepped.decompress(more); }, {"dct payload", "1 bytes follow the last block"});
  more.resize(more.size() - 20);
  expect_error([&] { stepped.decompress(more); }, {"dct payload", "truncated"});
  bad = good;
  bad[0] = 33;  // a face size 8 does not divide
  expect_error([&] { c.decompress(bad); }, {"dct payload", "does not divide"});
}

}  // namespace
}  // namespace climate
