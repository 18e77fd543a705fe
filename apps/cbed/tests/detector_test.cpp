// Poisson noise at a dose: the counts have the dose's mean, a variance equal to their mean, and
// bad doses or intensities are refused.
#include <gtest/gtest.h>

#include <exadnn/core/error.h>

#include <cmath>
#include <numeric>

#include "cbed/detector.h"

namespace cbed {
namespace {

TEST(Detector, CountsArePoissonAtTheDose) {
  // A pattern of 100 pixels: one bright (0.5), the rest share 0.4, 0.1 is lost (sum 0.9).
  std::vector<double> pattern(100, 0.4 / 99);
  pattern[0] = 0.5;
  Rng rng(1);
  const double dose = 2000;
  const int draws = 2000;
  double total = 0, sum_bright = 0, sum2_bright = 0;
  for (int d = 0; d < draws; ++d) {
    const std::vector<double> c = poisson_counts(pattern, dose, rng);
    total += std::accumulate(c.begin(), c.end(), 0.0);
    sum_bright += c[0];
    sum2_bright += c[0] * c[0];
  }
  // Total counts over all draws: Poisson with mean draws * dose * 0.9; within 5 standard
  // deviations.
  const double mu = draws * dose * 0.9;
  EXPECT_NEAR(total, mu, 5 * std::sqrt(mu));
  // The bright pixel: variance / mean = 1; the ratio's standard error is sqrt(2 / draws) = 0.032.
  const double mean = sum_bright / draws;
  const double variance = (sum2_bright - draws * mean * mean) / (draws - 1);
  EXPECT_NEAR(variance / mean, 1.0, 5 * std::sqrt(2.0 / draws));
}

TEST(Detector, BadDoseOrIntensityIsNamed) {
  Rng rng(2);
  EXPECT_THROW(poisson_counts({0.5}, 0, rng), exadnn::Error);
  try {
    poisson_counts({0.5, -0.1}, 10, rng);
    FAIL();
  } catch (const exadnn::Error& e) {
    EXPECT_NE(std::string(e.what()).find("pixel 1"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace cbed
