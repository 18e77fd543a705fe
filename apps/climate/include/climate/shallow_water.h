// The discontinuous-Galerkin right-hand side of the shallow-water equations on the rotating
// sphere, in 3-D Cartesian momentum form (see README.md, "Formulation"):
//
//   ∂h/∂t  + ∇_s · (h u)                 = 0
//   ∂(hu)/∂t + ∇_s · (h u ⊗ u + ½ g h² I) = −2 Ω × (h u)     then projected onto the tangent plane
//
// with u ∈ R³ tangent to the sphere, ∇_s the surface divergence, collocated LGL nodes (DGSEM,
// strong form), the Rusanov flux at element edges, and the momentum tendency projected with
// P = I − n nᵀ at every node, so that the velocity stays tangent.
//
// State layout: std::vector<double> of shape [num_elements][4][p+1][p+1] (row-major), the
// variables h [m], h u_x, h u_y, h u_z [m²/s]; node (i, j) of a variable block is j (p+1) + i.
#pragma once

#include <cstddef>
#include <functional>
#include <vector>

#include "climate/constants.h"
#include "climate/cubed_sphere.h"
#include "climate/vec3.h"

namespace climate {

using SwState = std::vector<double>;

/// How the volume terms are formed.
enum class VolumeForm {
  /// −(1/J) Σ_i D G^i: the derivative of the interpolated contravariant fluxes (standard DGSEM).
  divergence,
  /// −(1/J) Σ_i Σ_l 2 D_il F#(q, q_l; {J a^i}): flux differencing with a symmetric two-point flux
  /// (Wintermeyer et al. 2017: averaged momentum, velocity and metric, pressure ½ g h h_l).
  split,
};

struct ShallowWaterParams {
  double gravity = kGravity;         ///< g [m/s²]
  Vec3 omega = {0, 0, kEarthOmega};  ///< the planet's rotation vector Ω [1/s]
  VolumeForm volume = VolumeForm::split;
};

class ShallowWater {
 public:
  static constexpr int kVars = 4;

  /// The solver keeps a reference to `mesh`, which must outlive it.
  ShallowWater(const CubedSphere& mesh, ShallowWaterParams params = {});

  const CubedSphere& mesh() const { return mesh_; }
  const ShallowWaterParams& params() const { return params_; }
  /// The number of doubles of a state: num_elements · 4 · (p+1)².
  std::size_t state_size() const;
  /// The offset of variable v's block of element e in a state.
  std::size_t offset(int e, int v) const {
    return (static_cast<std::size_t>(e) * kVars + v) * mesh_.nodes_per_element();
  }

  /// dU/dt at U (t unused: the equations are autonomous). dU takes U's size. Not re-entrant: it
  /// uses the solver's scratch arrays.
  void rhs(double t, const SwState& U, SwState& dU) const;

  /// The time step at Courant number `cfl` for state U: dt = cfl · Δξ_min / λ, with Δξ_min the
  /// smallest LGL node spacing (ξ_1 − ξ_0) and λ = max over nodes of Σ_i (|a^i · u| + √(gh) |a^i|),
  /// the reference-space wave speed summed over both directions.
  double stable_dt(const SwState& U, double cfl) const;

  /// A state from pointwise values: fill(x, h, u) gives the height and the velocity (any
  /// vector; its tangent part is kept) at the point x of the sphere.
  SwState make_state(const std::function<void(const Vec3& x, double& h, Vec3& u)>& fill) const;

  /// ∫ h dA by the LGL quadrature [m³].
  double mass(const SwState& U) const;

 private:
  void volume_terms(const SwState& U, SwState& dU) const;
  void interface_terms(const SwState& U, SwState& dU) const;
  void sources_and_projection(const SwState& U, SwState& dU) const;

  // One node pair of an interface, its geometry precomputed: the offsets of the two sides'
  // h values in a state (variable v at + v (p+1)²), the unit normal m̂ from the left side into
  // the right one with the left's line element |N_l|, the right side's own outward unit normal
  // and line element, and the lifting factors 1 / (J w_0) of the two nodes.
  struct FaceNode {
    std::size_t base_l, base_r;
    Vec3 m_l, m_r;
    double len_l, len_r;
    double lift_l, lift_r;
  };
  void build_face_nodes();

  const CubedSphere& mesh_;
  ShallowWaterParams params_;
  std::vector<FaceNode> face_nodes_;     // [interfaces × (p+1)]
  mutable std::vector<double> g1_, g2_;  // [4][p+1][p+1] contravariant fluxes of one element
};

}  // namespace climate
