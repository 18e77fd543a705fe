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
//
// On one rank of a partition (partition.h) the solver holds that rank's elements only: the state
// is [num_local_elements][4][p+1][p+1], its elements in ascending global index, and the traces of
// the neighbours other ranks own come in a buffer (halo.h moves them). The arithmetic of every
// node is the same as on one process, in the same order, so the fields are bit-identical.
#pragma once

#include <cstddef>
#include <functional>
#include <vector>

#include "climate/constants.h"
#include "climate/cubed_sphere.h"
#include "climate/partition.h"
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

/// Elements whose split-form volume terms are computed together, in SIMD lanes.
inline constexpr int kSplitLanes = 4;

/// The split-form kernel's batch of kSplitLanes elements, interleaved [var][node][lane].
struct SplitScratch {
  std::vector<double> q, half_u, ja1, ja2, acc;
  void resize(int nodes_per_element) {
    const std::size_t n = static_cast<std::size_t>(nodes_per_element) * kSplitLanes;
    q.resize(4 * n);
    half_u.resize(3 * n);
    ja1.resize(3 * n);
    ja2.resize(3 * n);
    acc.resize(4 * n);
  }
};

struct ShallowWaterParams {
  double gravity = kGravity;         ///< g [m/s²]
  Vec3 omega = {0, 0, kEarthOmega};  ///< the planet's rotation vector Ω [1/s]
  VolumeForm volume = VolumeForm::split;
};

class ShallowWater {
 public:
  static constexpr int kVars = 4;

  /// The solver of every element (one process). It keeps a reference to `mesh`, which must
  /// outlive it.
  ShallowWater(const CubedSphere& mesh, ShallowWaterParams params = {});
  /// The solver of the elements `partition` gives to `rank` (0 ≤ rank < partition.ranks()).
  ShallowWater(const CubedSphere& mesh, ShallowWaterParams params, const Partition& partition,
               int rank);

  const CubedSphere& mesh() const { return mesh_; }
  const ShallowWaterParams& params() const { return params_; }
  /// The number of doubles of a state: num_local_elements · 4 · (p+1)².
  std::size_t state_size() const;
  /// The elements this solver holds: all of the mesh's, or one rank's.
  int num_local_elements() const { return static_cast<int>(elements_.size()); }
  /// The global index of local element e.
  int global_element(int e) const { return elements_[e]; }
  /// The offset of variable v's block of local element e in a state.
  std::size_t offset(int e, int v) const {
    return (static_cast<std::size_t>(e) * kVars + v) * mesh_.nodes_per_element();
  }

  /// dU/dt at U (t unused: the equations are autonomous). dU takes U's size. Not re-entrant: it
  /// uses the solver's scratch arrays.
  void rhs(double t, const SwState& U, SwState& dU) const;

  // The right-hand side in two parts, for a rank whose neighbour traces arrive while the volume
  // terms run: rhs = volume_terms, then surface_terms with the traces.

  /// dU = the volume terms of every local element (dU takes U's size first).
  void volume_terms(const SwState& U, SwState& dU) const;
  /// dU += the interface terms (Rusanov fluxes) of every edge of a local element, then the
  /// Coriolis term and the projection onto the tangent plane. `traces`: the neighbours' traces
  /// that other ranks own, [partition.receives(rank).size()][4][p+1] (node k of an edge at k, in
  /// the edge's own order), or null when there are none.
  void surface_terms(const SwState& U, const double* traces, SwState& dU) const;
  /// The number of values of one trace: 4 (p+1).
  int trace_values() const { return kVars * mesh_.nodes_1d(); }
  /// The number of traces this rank sends (partition.sends(rank)) and receives.
  std::size_t num_send_traces() const { return send_.size(); }
  std::size_t num_recv_traces() const { return num_recv_; }
  /// Writes the traces the other ranks need, in partition.sends(rank) order, into `out`
  /// ([num_send_traces][4][p+1]).
  void pack_traces(const SwState& U, double* out) const;

  /// The time step at Courant number `cfl` for state U: dt = cfl · Δξ_min / λ, with Δξ_min the
  /// smallest LGL node spacing (ξ_1 − ξ_0) and λ = max over nodes of Σ_i (|a^i · u| + √(gh) |a^i|),
  /// the reference-space wave speed summed over both directions.
  double stable_dt(const SwState& U, double cfl) const;

  /// A state from pointwise values: fill(x, h, u) gives the height and the velocity (any
  /// vector; its tangent part is kept) at the point x of the sphere.
  SwState make_state(const std::function<void(const Vec3& x, double& h, Vec3& u)>& fill) const;

  /// ∫ h dA by the LGL quadrature [m³] (over the local elements).
  double mass(const SwState& U) const;

 private:
  void interface_terms(const SwState& U, const double* traces, SwState& dU) const;
  template <bool kAllLocal>
  void interface_loop(const SwState& U, const double* traces, SwState& dU) const;
  void sources_and_projection(const SwState& U, SwState& dU) const;

  // One node pair of an interface, its geometry precomputed: the offsets of the two sides'
  // h values (variable v at + v stride) in the state (a local side, stride (p+1)²) or in the
  // trace buffer (a side another rank owns, stride p+1; face_remote_ says which), the unit
  // normal m̂ from the left side into the right one with the left's line element |N_l|, the
  // right side's own outward unit normal and line element, and the lifting factors 1 / (J w_0)
  // of the two nodes.
  struct FaceNode {
    std::size_t base_l, base_r;
    Vec3 m_l, m_r;
    double len_l, len_r;
    double lift_l, lift_r;
  };
  // One trace to send: local element, edge.
  struct SendTrace {
    int elem, edge;
  };
  void build_face_nodes(const Partition& partition, int rank);

  const CubedSphere& mesh_;
  ShallowWaterParams params_;
  std::vector<int> elements_;    // [local elements] their global indices, ascending
  std::vector<SendTrace> send_;  // [traces to send] in partition.sends order
  std::size_t num_recv_ = 0;
  std::vector<FaceNode> face_nodes_;  // [interfaces touching a local element × (p+1)]
  // [face_nodes_] bit 0: the left side is another rank's, bit 1: the right side; empty when
  // every side is local (kept apart from FaceNode, whose size the one-process loop feels).
  std::vector<unsigned char> face_remote_;
  mutable std::vector<double> g1_, g2_;  // [4][p+1][p+1] contravariant fluxes of one element
  mutable SplitScratch split_;
};

}  // namespace climate
