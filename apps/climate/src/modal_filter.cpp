// The exponential modal filter: F = V diag(σ) V⁻¹ with V_ik = φ_k(ξ_i), the orthonormal Legendre
// polynomials at the LGL nodes. V⁻¹ needs no solve: LGL quadrature integrates φ_j φ_k exactly
// for j + k ≤ 2p − 1, so Vᵀ W V is diagonal (m_k = Σ_i w_i φ_k(ξ_i)², 1 except for k = p) and
// V⁻¹ = diag(1/m) Vᵀ W.
#include "climate/modal_filter.h"

#include <cmath>

#include "exadnn/core/error.h"

namespace climate {

ModalFilter::ModalFilter(const ShallowWater& solver, FilterParams params)
    : solver_(solver), params_(params) {
  EXADNN_CHECK(params.strength >= 0 && std::isfinite(params.strength), "ModalFilter",
               "the strength α must be finite and >= 0, got ", params.strength);
  EXADNN_CHECK(params.order >= 2 && params.order % 2 == 0, "ModalFilter",
               "the order s must be even and >= 2, got ", params.order);
  EXADNN_CHECK(params.cutoff >= 0 && params.cutoff < 1, "ModalFilter",
               "the cutoff η_c must lie in [0, 1), got ", params.cutoff);
  const LglBasis& basis = solver.mesh().basis();
  const int p = basis.degree, n = basis.size;
  sigma_.resize(n);
  for (int k = 0; k < n; ++k) {
    const double eta = double(k) / p;
    sigma_[k] = eta <= params.cutoff
                    ? 1.0
                    : std::exp(-params.strength *
                               std::pow((eta - params.cutoff) / (1 - params.cutoff), params.order));
  }
  std::vector<double> phi(n * n), m(n, 0.0);  // phi[i n + k] = φ_k(ξ_i)
  for (int i = 0; i < n; ++i)
    for (int k = 0; k < n; ++k) {
      double v, d;
      legendre(k, basis.nodes[i], v, d);
      phi[i * n + k] = v * std::sqrt((2 * k + 1) / 2.0);
      m[k] += basis.weights[i] * phi[i * n + k] * phi[i * n + k];
    }
  matrix_.assign(n * n, 0.0);
  for (int i = 0; i < n; ++i)
    for (int l = 0; l < n; ++l)
      for (int k = 0; k < n; ++k)
        matrix_[i * n + l] += phi[i * n + k] * sigma_[k] * basis.weights[l] * phi[l * n + k] / m[k];
  line_.resize(n * n);
  field_.resize(n * n);
}

void ModalFilter::apply(SwState& U) const {
  EXADNN_CHECK(U.size() == solver_.state_size(), "ModalFilter", "a state of ", solver_.state_size(),
               " values expected, got ", U.size());
  const CubedSphere& mesh = solver_.mesh();
  const int n = mesh.nodes_1d(), npe = n * n;
  const double* F = matrix_.data();
  for (int e = 0; e < solver_.num_local_elements(); ++e) {
    const int g0 = solver_.global_element(e) * npe;
    for (int v = 0; v < ShallowWater::kVars; ++v) {
      double* q = U.data() + solver_.offset(e, v);
      for (int a = 0; a < npe; ++a) field_[a] = mesh.metric(g0 + a).jac * q[a];
      // Along ξ (index i of node j n + i), then along η; then divide J out again.
      for (int j = 0; j < n; ++j)
        for (int i = 0; i < n; ++i) {
          double s = 0;
          for (int l = 0; l < n; ++l) s += F[i * n + l] * field_[j * n + l];
          line_[j * n + i] = s;
        }
      for (int j = 0; j < n; ++j)
        for (int i = 0; i < n; ++i) {
          double s = 0;
          for (int l = 0; l < n; ++l) s += F[j * n + l] * line_[l * n + i];
          q[j * n + i] = s / mesh.metric(g0 + j * n + i).jac;
        }
    }
    // Momentum back onto the tangent plane: m ← m − (m · n̂) n̂.
    double* mx = U.data() + solver_.offset(e, 1);
    double* my = U.data() + solver_.offset(e, 2);
    double* mz = U.data() + solver_.offset(e, 3);
    for (int a = 0; a < npe; ++a) {
      const Vec3& nh = mesh.metric(g0 + a).n;
      const double mn = mx[a] * nh[0] + my[a] * nh[1] + mz[a] * nh[2];
      mx[a] -= mn * nh[0];
      my[a] -= mn * nh[1];
      mz[a] -= mn * nh[2];
    }
  }
}

}  // namespace climate
