// An exponential modal filter for the DG state: each element's fields are expanded in the
// tensor-product Legendre basis, mode (k, l) is multiplied by σ(k/p) σ(l/p), and the result is
// evaluated back at the LGL nodes (Hesthaven & Warburton, "Nodal Discontinuous Galerkin Methods",
// 2008, §5.3). It damps the grid-scale modes the Rusanov flux leaves, element by element (no
// communication, so a distributed run stays bit-identical to one process).
//
//   σ(η) = 1                                       for η ≤ η_c
//   σ(η) = exp(−α ((η − η_c) / (1 − η_c))^s)      for η > η_c,   η = k / p
//
// What is filtered is J q (the area element times each field), so the element integral ∫ h dA
// (mode (0, 0) of J h, σ(0) = 1) and hence the mass are unchanged to round-off; the momentum is
// projected back onto the tangent plane afterwards.
#pragma once

#include <vector>

#include "climate/shallow_water.h"

namespace climate {

struct FilterParams {
  double strength = 36;  ///< α ≥ 0: mode p is multiplied by e^−α per application (36: ~1e-16)
  int order = 16;        ///< s ≥ 2, even: how sharply the damping starts
  double cutoff = 0;     ///< η_c ∈ [0, 1): modes k ≤ η_c p are left alone
};

class ModalFilter {
 public:
  /// The filter of `solver`'s elements (all of them, or one rank's); keeps a reference to the
  /// solver, which must outlive it. Invalid parameters are refused by name.
  ModalFilter(const ShallowWater& solver, FilterParams params);

  /// Filters every local element of U in place (U has solver.state_size() values).
  void apply(SwState& U) const;

  const ShallowWater& solver() const { return solver_; }
  const FilterParams& params() const { return params_; }
  /// σ of mode k = 0 … p.
  const std::vector<double>& damping() const { return sigma_; }
  /// The 1-D nodal filter matrix [p+1][p+1] (row-major): u ← F u filters one line of nodes.
  const std::vector<double>& matrix() const { return matrix_; }

 private:
  const ShallowWater& solver_;
  FilterParams params_;
  std::vector<double> sigma_;                 // [p+1]
  std::vector<double> matrix_;                // [p+1][p+1] V diag(σ) V⁻¹
  mutable std::vector<double> line_, field_;  // scratch: [p+1][p+1] each
};

}  // namespace climate
