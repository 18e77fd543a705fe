// LGL nodes by Newton's method on (1 − x²) P'_p(x), weights 2 / (p(p+1) P_p(x)²), and the
// differentiation matrix from barycentric weights (its diagonal the negative row sum, so the
// derivative of a constant is exactly zero).
#include "climate/lgl.h"

#include <cmath>

#include "climate/constants.h"
#include "exadnn/core/error.h"

namespace climate {

void legendre(int n, double x, double& value, double& derivative) {
  double p0 = 1, p1 = x;
  if (n == 0) {
    value = 1;
    derivative = 0;
    return;
  }
  for (int k = 2; k <= n; ++k) {
    const double p2 = ((2 * k - 1) * x * p1 - (k - 1) * p0) / k;
    p0 = p1;
    p1 = p2;
  }
  value = p1;
  // P'_n = n (x P_n − P_{n−1}) / (x² − 1) away from ±1; at ±1 it is (±1)^{n+1} n(n+1)/2.
  if (std::abs(std::abs(x) - 1) < 1e-15)
    derivative = (x > 0 ? 1.0 : (n % 2 ? 1.0 : -1.0)) * n * (n + 1) / 2.0;
  else
    derivative = n * (x * p1 - p0) / (x * x - 1);
}

LglBasis::LglBasis(int p) : degree(p), size(p + 1) {
  EXADNN_CHECK(p >= 1 && p <= kMaxDegree, "LglBasis", "the polynomial degree must lie in [1, ",
               kMaxDegree, "], got ", p);
  const int n = p + 1;
  nodes.assign(n, 0.0);
  weights.assign(n, 0.0);
  nodes[0] = -1;
  nodes[p] = 1;
  // Interior nodes: the roots of P'_p, from the Chebyshev–Gauss–Lobatto guesses. Newton on
  // q(x) = P'_p(x) with q' = (2x P'_p − p(p+1) P_p) / (1 − x²).
  for (int i = 1; i < p; ++i) {
    double x = -std::cos(kPi * i / p);
    for (int it = 0; it < 100; ++it) {
      double v, d;
      legendre(p, x, v, d);
      const double dd = (2 * x * d - p * (p + 1) * v) / (1 - x * x);
      const double dx = d / dd;
      x -= dx;
      if (std::abs(dx) < 1e-16) break;
    }
    nodes[i] = x;
  }
  for (int i = 0; i < n; ++i) {
    double v, d;
    legendre(p, nodes[i], v, d);
    weights[i] = 2.0 / (p * (p + 1) * v * v);
  }
  // Barycentric weights λ_j = 1 / Π_{k≠j} (x_j − x_k); D_ij = (λ_j / λ_i) / (x_i − x_j).
  std::vector<double> bary(n, 1.0);
  for (int j = 0; j < n; ++j)
    for (int k = 0; k < n; ++k)
      if (k != j) bary[j] /= nodes[j] - nodes[k];
  diff.assign(n * n, 0.0);
  for (int i = 0; i < n; ++i) {
    double row = 0;
    for (int j = 0; j < n; ++j) {
      if (j == i) continue;
      diff[i * n + j] = bary[j] / bary[i] / (nodes[i] - nodes[j]);
      row += diff[i * n + j];
    }
    diff[i * n + i] = -row;
  }
}

}  // namespace climate
