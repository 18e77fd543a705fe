// The cubed sphere's geometry: the exact gnomonic map's derivatives at every node.
#include "climate/cubed_sphere.h"

#include <cmath>

#include "exadnn/core/error.h"

namespace climate {
namespace {

// Validates the arguments before any member is built; returns p for the basis.
int checked_degree(int ne, int p, double radius) {
  EXADNN_CHECK(ne >= 1, "CubedSphere", "the number of elements per cube edge Ne must be >= 1, got ",
               ne);
  EXADNN_CHECK(p >= 1 && p <= LglBasis::kMaxDegree, "CubedSphere",
               "the polynomial degree p must lie in [1, ", LglBasis::kMaxDegree, "], got ", p);
  EXADNN_CHECK(radius > 0 && std::isfinite(radius), "CubedSphere",
               "the radius must be positive and finite, got ", radius);
  return p;
}

}  // namespace

CubedSphere::CubedSphere(int ne, int p, double radius)
    : ne_(ne), radius_(radius), basis_(checked_degree(ne, p, radius)) {
  build_metric();
  build_connectivity();
}

void CubedSphere::face_axes(int f, Vec3& c, Vec3& e1, Vec3& e2) {
  // Four equatorial faces (+x, +y, −x, −y) with e2 = +z, then the north (+z) and south (−z)
  // faces; each right-handed (e1 × e2 = c) so that J > 0 with the outward normal.
  static const Vec3 kC[6] = {{1, 0, 0}, {0, 1, 0}, {-1, 0, 0}, {0, -1, 0}, {0, 0, 1}, {0, 0, -1}};
  static const Vec3 kE1[6] = {{0, 1, 0}, {-1, 0, 0}, {0, -1, 0}, {1, 0, 0}, {0, 1, 0}, {0, 1, 0}};
  static const Vec3 kE2[6] = {{0, 0, 1}, {0, 0, 1}, {0, 0, 1}, {0, 0, 1}, {-1, 0, 0}, {1, 0, 0}};
  EXADNN_CHECK(f >= 0 && f < 6, "CubedSphere", "a cube face lies in [0, 6), got ", f);
  c = kC[f];
  e1 = kE1[f];
  e2 = kE2[f];
}

void CubedSphere::build_metric() {
  const int np = nodes_1d();
  const double delta = kPi / (2 * ne_);  // the angular width of an element
  metric_.resize(num_nodes());
  area_weight_.resize(num_nodes());
  for (int e = 0; e < num_elements(); ++e) {
    Vec3 c, e1, e2;
    face_axes(face(e), c, e1, e2);
    for (int j = 0; j < np; ++j) {
      for (int i = 0; i < np; ++i) {
        const double alpha = -kPi / 4 + delta * (ei(e) + (basis_.nodes[i] + 1) / 2);
        const double beta = -kPi / 4 + delta * (ej(e) + (basis_.nodes[j] + 1) / 2);
        const double ta = std::tan(alpha), tb = std::tan(beta);
        const Vec3 r = c + ta * e1 + tb * e2;
        const double rn = norm(r);
        const Vec3 n = (1 / rn) * r;
        // ∂x/∂α = (a / |r|) (I − n nᵀ) ∂r/∂α with ∂r/∂α = sec²α e1; ∂α/∂ξ = Δ / 2.
        const double sa = 1 + ta * ta, sb = 1 + tb * tb;
        const Vec3 dra = sa * e1, drb = sb * e2;
        const double s = radius_ / rn * delta / 2;
        const Vec3 a1 = s * (dra - dot(n, dra) * n);
        const Vec3 a2 = s * (drb - dot(n, drb) * n);
        NodeMetric& m = metric_[(e * np + j) * np + i];
        m.x = radius_ * n;
        m.n = n;
        m.jac = dot(cross(a1, a2), n);
        m.ja1 = cross(a2, n);
        m.ja2 = cross(n, a1);
        area_weight_[(e * np + j) * np + i] = basis_.weights[i] * basis_.weights[j] * m.jac;
      }
    }
  }
}

double CubedSphere::area() const {
  // Summed per element first, then over elements: a shorter chain of round-off.
  const int npe = nodes_per_element();
  double total = 0;
  for (int e = 0; e < num_elements(); ++e) {
    double s = 0;
    for (int g = e * npe; g < (e + 1) * npe; ++g) s += area_weight_[g];
    total += s;
  }
  return total;
}

void CubedSphere::edge_node(int edge, int k, int& i, int& j) const {
  const int p = degree();
  switch (edge) {
    case 0:
      i = k, j = 0;
      break;
    case 1:
      i = p, j = k;
      break;
    case 2:
      i = k, j = p;
      break;
    default:
      i = 0, j = k;
      break;
  }
}

Vec3 CubedSphere::scaled_normal(int e, int edge, int k) const {
  int i, j;
  edge_node(edge, k, i, j);
  const NodeMetric& m = metric(e, i, j);
  switch (edge) {
    case 0:
      return -1.0 * m.ja2;
    case 1:
      return m.ja1;
    case 2:
      return m.ja2;
    default:
      return -1.0 * m.ja1;
  }
}

}  // namespace climate
