// Legendre–Gauss–Lobatto (LGL) nodes, quadrature weights and the nodal differentiation matrix on
// the reference interval [-1, 1]: the one-dimensional basis of the DG spectral-element method.
#pragma once

#include <vector>

namespace climate {

/// The Lagrange basis of degree p on the p + 1 LGL nodes.
struct LglBasis {
  /// Builds the basis of degree p (1 ≤ p ≤ kMaxDegree).
  explicit LglBasis(int p);

  static constexpr int kMaxDegree = 24;

  int degree;                   ///< p
  int size;                     ///< p + 1 nodes
  std::vector<double> nodes;    ///< [p+1], ascending, nodes[0] = -1, nodes[p] = 1
  std::vector<double> weights;  ///< [p+1], the LGL quadrature weights (sum 2; exact to degree 2p−1)
  /// [p+1][p+1] row-major: (d/dξ ℓ_k)(ξ_i) = diff[i * (p+1) + k], so (Du)_i = Σ_k diff[i,k] u_k is
  /// the derivative of the interpolant of u at node i. Summation by parts: W D + Dᵀ W = B.
  std::vector<double> diff;
};

/// The Legendre polynomial P_n(x) and its derivative, by the three-term recurrence.
void legendre(int n, double x, double& value, double& derivative);

}  // namespace climate
