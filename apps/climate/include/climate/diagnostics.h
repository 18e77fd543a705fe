// Diagnostics of a state. Error norms of a field against a reference, as defined by Williamson et
// al. (1992), by the mesh's LGL quadrature: l1 = I(|h − h_T|) / I(|h_T|), l2 = √(I((h − h_T)²) /
// I(h_T²)), l∞ = max |h − h_T| / max |h_T|, with I the integral over the sphere.
#pragma once

#include <functional>
#include <vector>

#include "climate/shallow_water.h"

namespace climate {

struct ErrorNorms {
  double l1, l2, linf;
};

/// The normalized errors of the height of U against exact(x).
ErrorNorms height_errors(const ShallowWater& solver, const SwState& U,
                         const std::function<double(const Vec3&)>& exact);

/// The relative vorticity ζ = n · ∇ × u at every node [1/s], shape [num_nodes] (global node
/// order): ζ = (1/J) (∂_ξ (a_2 · u) − ∂_η (a_1 · u)) by the element's differentiation matrix.
std::vector<double> relative_vorticity(const ShallowWater& solver, const SwState& U);

/// The observed order of convergence between two meshes of element widths in ratio `refinement`.
double observed_order(double coarse_error, double fine_error, double refinement);

}  // namespace climate
