// The orthonormal block DCT-II (dct.h): against its definition, inverse, Parseval.
#include "climate/dct.h"

#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <vector>

#include "exadnn/core/error.h"

namespace climate {
namespace {

std::vector<double> random_block(int b, unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> dist(-5, 5);
  std::vector<double> x(static_cast<std::size_t>(b) * b);
  for (double& v : x) v = dist(rng);
  return x;
}

TEST(BlockDct, MatchesTheOrthonormalDefinition) {
  for (const int b : {2, 5, 8, 16}) {
    const BlockDct dct(b);
    const std::vector<double> x = random_block(b, 1);
    std::vector<double> X(x.size());
    dct.forward(x.data(), X.data());
    for (int u = 0; u < b; ++u)
      for (int v = 0; v < b; ++v) {
        const double su = std::sqrt((u ? 2.0 : 1.0) / b), sv = std::sqrt((v ? 2.0 : 1.0) / b);
        double s = 0;
        for (int j = 0; j < b; ++j)
          for (int i = 0; i < b; ++i)
            s += x[j * b + i] * std::cos(M_PI * (j + 0.5) * u / b) *
                 std::cos(M_PI * (i + 0.5) * v / b);
        EXPECT_NEAR(X[u * b + v], su * sv * s, 1e-12) << "B " << b << " (" << u << ", " << v << ")";
      }
  }
}

TEST(BlockDct, InverseIsExactAndParsevalHolds) {
  for (const int b : {4, 8, 32}) {
    const BlockDct dct(b);
    const std::vector<double> x = random_block(b, 2);
    std::vector<double> X(x.size()), y(x.size());
    dct.forward(x.data(), X.data());
    dct.inverse(X.data(), y.data());
    double ex = 0, eX = 0, err = 0;
    for (std::size_t i = 0; i < x.size(); ++i) {
      ex += x[i] * x[i];
      eX += X[i] * X[i];
      err = std::fmax(err, std::fabs(y[i] - x[i]));
    }
    EXPECT_LT(err, 1e-13 * 5) << "B " << b;  // values up to 5: 1e-13 relative
    EXPECT_NEAR(eX / ex, 1.0, 1e-13) << "B " << b;
  }
}

TEST(BlockDct, DcIsBlockSizeTimesMeanAndInPlaceWorks) {
  const int b = 8;
  const BlockDct dct(b);
  std::vector<double> x = random_block(b, 3);
  double mean = 0;
  for (const double v : x) mean += v / (b * b);
  dct.forward(x.data(), x.data());
  EXPECT_NEAR(x[0], b * mean, 1e-13);
}

TEST(BlockDct, BadBlockSizeIsRefused) {
  try {
    BlockDct dct(1);
    FAIL() << "block size 1 accepted";
  } catch (const exadnn::Error& e) {
    EXPECT_NE(std::string(e.what()).find("block size 1"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace climate
