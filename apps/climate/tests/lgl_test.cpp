// The LGL basis: known nodes and weights, exactness of the quadrature to degree 2p − 1, exact
// differentiation of polynomials of degree p, and summation by parts.
#include <gtest/gtest.h>

#include <cmath>

#include "climate/lgl.h"

namespace climate {
namespace {

TEST(Lgl, DegreeThreeNodesAndWeights) {
  const LglBasis b(3);
  const double x = 1 / std::sqrt(5.0);
  const double nodes[] = {-1, -x, x, 1};
  const double weights[] = {1.0 / 6, 5.0 / 6, 5.0 / 6, 1.0 / 6};
  for (int i = 0; i < 4; ++i) {
    EXPECT_NEAR(b.nodes[i], nodes[i], 1e-15);
    EXPECT_NEAR(b.weights[i], weights[i], 1e-15);
  }
}

TEST(Lgl, QuadratureExactToDegreeTwoPMinusOne) {
  for (int p = 1; p <= 12; ++p) {
    const LglBasis b(p);
    for (int d = 0; d <= 2 * p - 1; ++d) {
      double s = 0;
      for (int i = 0; i <= p; ++i) s += b.weights[i] * std::pow(b.nodes[i], d);
      const double exact = d % 2 ? 0.0 : 2.0 / (d + 1);
      EXPECT_NEAR(s, exact, 1e-14) << "p " << p << " degree " << d;
    }
  }
}

TEST(Lgl, DifferentiatesPolynomialsOfDegreePExactly) {
  for (int p = 1; p <= 12; ++p) {
    const LglBasis b(p);
    const int n = p + 1;
    for (int d = 0; d <= p; ++d) {
      for (int i = 0; i < n; ++i) {
        double s = 0;
        for (int k = 0; k < n; ++k) s += b.diff[i * n + k] * std::pow(b.nodes[k], d);
        const double exact = d == 0 ? 0.0 : d * std::pow(b.nodes[i], d - 1);
        EXPECT_NEAR(s, exact, 1e-11 * (1 + p * p)) << "p " << p << " degree " << d;
      }
    }
  }
}

TEST(Lgl, SummationByParts) {
  for (int p = 1; p <= 12; ++p) {
    const LglBasis b(p);
    const int n = p + 1;
    for (int i = 0; i < n; ++i)
      for (int k = 0; k < n; ++k) {
        const double q = b.weights[i] * b.diff[i * n + k] + b.weights[k] * b.diff[k * n + i];
        const double boundary = (i == k && i == p) ? 1.0 : (i == k && i == 0) ? -1.0 : 0.0;
        EXPECT_NEAR(q, boundary, 1e-12) << "p " << p << " (" << i << ", " << k << ")";
      }
  }
}

TEST(Lgl, InvalidDegreeRefused) {
  EXPECT_THROW(LglBasis(0), std::exception);
  EXPECT_THROW(LglBasis(LglBasis::kMaxDegree + 1), std::exception);
}

}  // namespace
}  // namespace climate
