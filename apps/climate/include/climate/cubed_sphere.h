// The equiangular gnomonic cubed sphere: 6 faces × Ne × Ne elements, each with (p+1)² LGL nodes,
// the exact mapping's metric terms at every node and the connectivity of the element edges
// (across cube faces too, with their relative orientation), all computed once.
//
// Face f has its centre direction c_f and tangent axes e1_f, e2_f (right-handed: e1 × e2 = c).
// A point of face f at the angles (α, β) ∈ [−π/4, π/4]² is x = a r / |r| with
// r = c_f + tan α e1_f + tan β e2_f. Element (f, ei, ej) covers α ∈ α_ei + [0, Δ], β ∈ β_ej + [0,
// Δ] with Δ = π / (2 Ne); its reference coordinates (ξ, η) ∈ [−1, 1]² map affinely onto (α, β).
//
// Numbering: element e = f Ne² + ej Ne + ei; node (i, j) of an element, i along ξ and j along η,
// is node index j (p+1) + i; global node e (p+1)² + j (p+1) + i.
// Edges of an element: 0 south (η = −1), 1 east (ξ = +1), 2 north (η = +1), 3 west (ξ = −1);
// node k (0 ≤ k ≤ p) of an edge runs along increasing ξ (edges 0, 2) or η (edges 1, 3).
#pragma once

#include <vector>

#include "climate/constants.h"
#include "climate/lgl.h"
#include "climate/vec3.h"

namespace climate {

/// The geometry at one node: position, unit outward normal (x / a), and the metric terms of the
/// map (ξ, η) → x: the covariant basis a_1 = ∂x/∂ξ, a_2 = ∂x/∂η, the area element
/// J = (a_1 × a_2) · n and the contravariant basis scaled by J, J a^1 = a_2 × n, J a^2 = n × a_1
/// (tangent to the sphere; a^i · a_k = δ_ik).
struct NodeMetric {
  Vec3 x;
  Vec3 n;
  double jac;
  Vec3 ja1;
  Vec3 ja2;
};

/// One edge shared by two elements. Node k of the left element's edge is node
/// (flip ? p − k : k) of the right element's edge: the same point of the sphere.
struct Interface {
  int elem_l, edge_l;
  int elem_r, edge_r;
  bool flip;
};

/// The neighbour across one element edge.
struct EdgeNeighbour {
  int elem, edge;
  bool flip;
};

class CubedSphere {
 public:
  /// Ne ≥ 1 elements along a cube edge, degree 1 ≤ p ≤ LglBasis::kMaxDegree, radius a > 0 [m].
  CubedSphere(int ne, int p, double radius = kEarthRadius);

  int ne() const { return ne_; }
  int degree() const { return basis_.degree; }
  int nodes_1d() const { return basis_.size; }
  int nodes_per_element() const { return basis_.size * basis_.size; }
  int num_elements() const { return 6 * ne_ * ne_; }
  int num_nodes() const { return num_elements() * nodes_per_element(); }
  double radius() const { return radius_; }
  const LglBasis& basis() const { return basis_; }

  /// The metric at global node index g = e (p+1)² + j (p+1) + i.
  const NodeMetric& metric(int g) const { return metric_[g]; }
  const NodeMetric& metric(int e, int i, int j) const {
    return metric_[(e * nodes_1d() + j) * nodes_1d() + i];
  }
  /// The quadrature weight of global node g: w_i w_j J (its share of the sphere's area, m²).
  double area_weight(int g) const { return area_weight_[g]; }
  /// Σ w_i w_j J over every node: the quadrature's area of the sphere.
  double area() const;

  /// The cube face of element e, and its (ei, ej) on that face.
  int face(int e) const { return e / (ne_ * ne_); }
  int ei(int e) const { return e % ne_; }
  int ej(int e) const { return (e / ne_) % ne_; }

  /// Every shared edge once: 12 Ne² interfaces.
  const std::vector<Interface>& interfaces() const { return interfaces_; }
  /// The neighbour across edge `edge` (0–3) of element e.
  const EdgeNeighbour& neighbour(int e, int edge) const { return neighbours_[4 * e + edge]; }

  /// The element-local node (i, j) of node k on edge `edge`.
  void edge_node(int edge, int k, int& i, int& j) const;
  /// The outward normal of element e at node k of edge `edge`, scaled by the edge's line element
  /// per unit reference length: ±J a^1 or ±J a^2 (tangent to the sphere; |N| = |a_2| or |a_1|).
  Vec3 scaled_normal(int e, int edge, int k) const;

  /// The centre direction and the tangent axes (e1, e2) of cube face f (0 ≤ f < 6).
  static void face_axes(int f, Vec3& c, Vec3& e1, Vec3& e2);

 private:
  void build_metric();
  void build_connectivity();

  int ne_;
  double radius_;
  LglBasis basis_;
  std::vector<NodeMetric> metric_;         // [num_nodes]
  std::vector<double> area_weight_;        // [num_nodes]
  std::vector<Interface> interfaces_;      // [12 Ne²]
  std::vector<EdgeNeighbour> neighbours_;  // [num_elements * 4]
};

}  // namespace climate
