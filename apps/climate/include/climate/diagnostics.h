// Diagnostics of a state. Error norms of a field against a reference, as defined by Williamson et
// al. (1992), by the mesh's LGL quadrature: l1 = I(|h − h_T|) / I(|h_T|), l2 = √(I((h − h_T)²) /
// I(h_T²)), l∞ = max |h − h_T| / max |h_T|, with I the integral over the sphere. The integral
// invariants of a state (mass, energy, potential enstrophy) and its largest wind, per output step.
#pragma once

#include <functional>
#include <vector>

#include "climate/shallow_water.h"

namespace climate {

struct ErrorNorms {
  double l1, l2, linf;
};

/// The integral invariants of a state by the mesh's LGL quadrature (Σ over nodes of w_i w_j J ·
/// integrand, the quadrature the solver conserves mass with), and its largest wind speed.
struct Invariants {
  double mass;  ///< ∫ h dA [m³]
  double energy;  ///< ∫ (½ h |u|² + ½ g h²) dA [m⁵/s²], per unit density; no bottom term: the
                  ///< solver has a flat bottom (no topography)
  double enstrophy;  ///< potential enstrophy ∫ (ζ + f)² / (2h) dA [m/s²], f = 2 Ω · n (the
                     ///< solver's rotation vector, so Williamson 2's tilted f for α ≠ 0)
  double max_wind;   ///< max over nodes of |u| [m/s]
};

/// The invariants of U (ζ by relative_vorticity).
Invariants invariants(const ShallowWater& solver, const SwState& U);

/// The normalized errors of the height of U against exact(x).
ErrorNorms height_errors(const ShallowWater& solver, const SwState& U,
                         const std::function<double(const Vec3&)>& exact);

/// The relative vorticity ζ = n · ∇ × u at every node [1/s], shape [num_nodes] (global node
/// order): ζ = (1/J) (∂_ξ (a_2 · u) − ∂_η (a_1 · u)) by the element's differentiation matrix.
std::vector<double> relative_vorticity(const ShallowWater& solver, const SwState& U);

/// The observed order of convergence between two meshes of element widths in ratio `refinement`.
double observed_order(double coarse_error, double fine_error, double refinement);

}  // namespace climate
