// The classifiers' log scale of CBED patterns: per pattern, brightest pixel 1, 1e-4 of it about
// 0, zero exactly 0 — and the batch transform the shard dataset kinds apply.
#include <gtest/gtest.h>

#include <exadnn/core/error.h>
#include <exadnn/ops/factories.h>

#include <cmath>

#include "cbed/pattern_scale.h"

namespace cbed {
namespace {

TEST(PatternScale, EachPatternOnItsOwnLogScale) {
  // Two patterns of 3 pixels with different brightness: each scaled by its own maximum.
  std::vector<float> v = {1000.f, 0.1f, 0.f, 2.f, 1.f, 2e-4f};
  log_scale_patterns(v.data(), 2, 3);
  EXPECT_NEAR(v[0], 1.0, 1e-6);
  EXPECT_NEAR(v[1], std::log10(1e-4 * (1 - 1e-4) + 1e-4) / 4 + 1, 1e-6);  // 1e-4 of the top
  EXPECT_NEAR(v[2], 0.0, 1e-6);                                           // log10(1e-4)/4 + 1
  EXPECT_NEAR(v[3], 1.0, 1e-6);
  EXPECT_NEAR(v[4], std::log10(0.5 * (1 - 1e-4) + 1e-4) / 4 + 1, 1e-6);
  EXPECT_NEAR(v[5], std::log10(1e-4 * (1 - 1e-4) + 1e-4) / 4 + 1, 1e-6);
}

// A deeper scale keeps fainter pixels apart from zero: 1e-6 of the top is at the floor with 4
// decades and a quarter of the way up with 8; the top stays 1 and zero stays 0.
TEST(PatternScale, MoreDecadesShowFainterPixels) {
  std::vector<float> four = {1.f, 1e-6f, 0.f}, eight = four;
  log_scale_patterns(four.data(), 1, 3);
  log_scale_patterns(eight.data(), 1, 3, 8);
  EXPECT_NEAR(four[1], std::log10(1e-6 * (1 - 1e-4) + 1e-4) / 4 + 1, 1e-6);   // ~0.001
  EXPECT_NEAR(eight[1], std::log10(1e-6 * (1 - 1e-8) + 1e-8) / 8 + 1, 1e-6);  // ~0.25
  EXPECT_NEAR(eight[0], 1.0, 1e-6);
  EXPECT_NEAR(eight[2], 0.0, 1e-6);
  EXPECT_GT(eight[1], 0.2);
  EXPECT_LT(four[1], 0.01);
  EXPECT_THROW(log_scale_patterns(four.data(), 1, 3, 0), exadnn::Error);
}

TEST(PatternScale, BatchTransformLeavesItsInputAndChecksTheShape) {
  exadnn::Tensor x = exadnn::empty({2, 3, 2, 2}, exadnn::DType::f32);
  for (int64_t i = 0; i < 24; ++i) x.data<float>()[i] = float(i % 4);
  exadnn::Generator gen(0);
  const exadnn::Tensor y = LogPatternScale().apply(x, gen);
  EXPECT_EQ(x.data<float>()[3], 3.f);  // unchanged
  for (int64_t p = 0; p < 6; ++p) {
    EXPECT_NEAR(y.data<float>()[p * 4 + 3], 1.0, 1e-6);  // each pattern's maximum
    EXPECT_NEAR(y.data<float>()[p * 4], 0.0, 1e-6);      // its zero
  }
  try {
    LogPatternScale().apply(exadnn::empty({4, 4}, exadnn::DType::f32), gen);
    FAIL();
  } catch (const exadnn::Error& e) {
    EXPECT_NE(std::string(e.what()).find("expects stacks [B, C, H, W] f32"), std::string::npos);
  }
}

}  // namespace
}  // namespace cbed
