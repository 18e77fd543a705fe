// Data consistency of a correction of DCT-compressed fields (dct_consistency.h), on Galewsky's
// initial h at (8, 3), face size 32, in the three quantisation modes: the true residual is left
// as it is (the original is consistent with its own stream, which also checks the cells'
// half-widths read off the decompressed blocks), an arbitrary correction is moved no further
// from the residual, and with f64 coefficients the corrected field compresses to the same stream.
#include "climate/dct_consistency.h"

#include <gtest/gtest.h>

#include <cmath>
#include <ostream>
#include <random>

#include "compress_test_fields.h"

namespace climate {

// How gtest names a case's parameters (it would otherwise print DctParams' bytes, padding
// included).
void PrintTo(const DctParams& p, std::ostream* os) {
  *os << "B=" << p.block << " k=" << p.keep << " bits=" << p.bits << " step=" << p.step;
}

namespace {

const FaceField& h() {
  return testing::galewsky_fields_once(8, 3).h;
}

FaceField difference(const FaceField& a, const FaceField& b) {
  FaceField out(a.n);
  for (size_t k = 0; k < a.data.size(); ++k) out.data[k] = a.data[k] - b.data[k];
  return out;
}

FaceField plus(const FaceField& a, const FaceField& b) {
  FaceField out(a.n);
  for (size_t k = 0; k < a.data.size(); ++k) out.data[k] = a.data[k] + b.data[k];
  return out;
}

// Noise of RMS `scale`, seeded.
FaceField noise(int n, double scale, unsigned seed) {
  FaceField out(n);
  std::mt19937_64 rng(seed);
  std::normal_distribution<double> normal(0, scale);
  for (double& v : out.data) v = normal(rng);
  return out;
}

class DctConsistency : public ::testing::TestWithParam<DctParams> {};

TEST_P(DctConsistency, TheTrueResidualStaysAndNoCorrectionMovesAway) {
  const DctCompressor compressor(GetParam());
  const FaceField d = compressor.decompress(compressor.compress(h()));
  const FaceField residual = difference(h(), d);
  const double size = rms(residual);
  ASSERT_GT(size, 1e-6) << "a lossless setting: nothing to check";
  FaceField projected = residual;
  project_onto_dct_consistent(GetParam(), d, projected);
  EXPECT_LE(rmse(projected, residual), 1e-9 * size) << compressor.describe();
  // An arbitrary correction: the residual plus noise as large as it, and noise alone.
  for (const bool with_residual : {true, false}) {
    FaceField c = noise(d.n, size, 7);
    if (with_residual) c = plus(c, residual);
    FaceField pc = c;
    project_onto_dct_consistent(GetParam(), d, pc);
    EXPECT_LE(rmse(pc, residual), rmse(c, residual) * (1 + 1e-12)) << compressor.describe();
    EXPECT_LT(rmse(pc, c), rmse(c, residual) * (1 + 1e-12));  // it moved, but within reason
    EXPECT_GT(rmse(pc, c), 1e-3 * size) << "the projection did nothing: the check is empty";
  }
}

INSTANTIATE_TEST_SUITE_P(Modes, DctConsistency,
                         ::testing::Values(DctParams{.block = 8, .keep = 2, .bits = 64},
                                           DctParams{.block = 8, .keep = 4, .bits = 8},
                                           DctParams{.block = 16, .keep = 5, .bits = 12},
                                           DctParams{.block = 8, .keep = 4, .step = 0.5}));

TEST(DctConsistency, WithF64CoefficientsTheCorrectedFieldGivesTheSameStream) {
  const DctParams truncation{.block = 8, .keep = 2, .bits = 64};
  const DctCompressor compressor(truncation);
  const std::vector<std::uint8_t> payload = compressor.compress(h());
  const FaceField d = compressor.decompress(payload);
  FaceField c = noise(d.n, 50.0, 3);
  project_onto_dct_consistent(truncation, d, c);
  const FaceField again = compressor.decompress(compressor.compress(plus(d, c)));
  EXPECT_LE(max_abs_error(again, d), 1e-9 * rms(h()));
}

TEST(DctConsistency, RefusesFieldsThatDoNotFit) {
  const FaceField d = h();
  FaceField small(8);
  EXPECT_THROW(project_onto_dct_consistent({.block = 8, .keep = 2}, d, small), exadnn::Error);
  FaceField c = d;
  EXPECT_THROW(project_onto_dct_consistent({.block = 7, .keep = 2}, d, c), exadnn::Error);
}

}  // namespace
}  // namespace climate
