// The cubed-sphere mesh: the quadrature's area of the sphere, the metric, and the connectivity
// (every element edge meets exactly one other, node for node, across cube faces too).
#include <gtest/gtest.h>

#include <cmath>
#include <set>
#include <string>

#include "climate/cubed_sphere.h"
#include "exadnn/core/error.h"

namespace climate {
namespace {

double sphere_area(double a) {
  return 4 * kPi * a * a;
}

TEST(CubedSphere, QuadratureAreaIsTheSpheres) {
  // The gnomonic map is not polynomial, so the LGL quadrature of J is exact only in the limit:
  // its error falls exponentially with p. At (Ne, p) = (4, 8) it is at round-off.
  const CubedSphere mesh(4, 8);
  EXPECT_NEAR(mesh.area() / sphere_area(kEarthRadius), 1.0, 1e-12);
  double prev = 1;
  for (int p = 2; p <= 6; p += 2) {
    const CubedSphere m(2, p, 1.0);
    const double err = std::abs(m.area() / sphere_area(1.0) - 1);
    EXPECT_LT(err, prev / 10) << "p = " << p;
    prev = err;
  }
}

TEST(CubedSphere, NodesOnTheSphereWithPositiveAreaElement) {
  const CubedSphere mesh(3, 4);
  for (int g = 0; g < mesh.num_nodes(); ++g) {
    const NodeMetric& m = mesh.metric(g);
    EXPECT_NEAR(norm(m.x) / kEarthRadius, 1.0, 1e-14);
    EXPECT_GT(m.jac, 0.0);
    EXPECT_NEAR(dot(m.ja1, m.n), 0.0, 1e-9 * norm(m.ja1));
    EXPECT_NEAR(dot(m.ja2, m.n), 0.0, 1e-9 * norm(m.ja2));
  }
}

TEST(CubedSphere, EveryEdgeHasExactlyOneMatchingNeighbour) {
  for (int ne : {1, 2, 5}) {
    for (int p : {1, 3, 4}) {
      const CubedSphere mesh(ne, p);
      const double tol = 1e-9 * kEarthRadius;
      EXPECT_EQ(static_cast<int>(mesh.interfaces().size()), 12 * ne * ne);
      std::set<std::pair<int, int>> seen;
      int cross_face = 0, flipped = 0;
      for (const Interface& f : mesh.interfaces()) {
        EXPECT_TRUE(seen.insert({f.elem_l, f.edge_l}).second);
        EXPECT_TRUE(seen.insert({f.elem_r, f.edge_r}).second);
        EXPECT_NE(f.elem_l, f.elem_r);
        if (mesh.face(f.elem_l) != mesh.face(f.elem_r)) ++cross_face;
        if (f.flip) ++flipped;
        for (int k = 0; k <= p; ++k) {
          const int kr = f.flip ? p - k : k;
          int il, jl, ir, jr;
          mesh.edge_node(f.edge_l, k, il, jl);
          mesh.edge_node(f.edge_r, kr, ir, jr);
          const Vec3 xl = mesh.metric(f.elem_l, il, jl).x, xr = mesh.metric(f.elem_r, ir, jr).x;
          EXPECT_LT(norm(xl - xr), tol) << "element " << f.elem_l << " edge " << f.edge_l;
          // The two sides' outward normals, scaled by their line elements, are opposite.
          const Vec3 nl = mesh.scaled_normal(f.elem_l, f.edge_l, k);
          const Vec3 nr = mesh.scaled_normal(f.elem_r, f.edge_r, kr);
          EXPECT_LT(norm(nl + nr), 1e-12 * norm(nl));
        }
        const EdgeNeighbour& a = mesh.neighbour(f.elem_l, f.edge_l);
        const EdgeNeighbour& b = mesh.neighbour(f.elem_r, f.edge_r);
        EXPECT_EQ(a.elem, f.elem_r);
        EXPECT_EQ(a.edge, f.edge_r);
        EXPECT_EQ(b.elem, f.elem_l);
        EXPECT_EQ(b.edge, f.edge_l);
      }
      EXPECT_EQ(static_cast<int>(seen.size()), 4 * mesh.num_elements());
      // The 12 cube edges, Ne element edges each.
      EXPECT_EQ(cross_face, 12 * ne);
      // Some cube edges meet reversed (the faces' axes are rotated there), none inside a face.
      EXPECT_GT(flipped, 0);
      EXPECT_LT(flipped, cross_face + 1);
    }
  }
}

TEST(CubedSphere, InvalidSizesRefusedWithTheReason) {
  auto message = [](int ne, int p) {
    try {
      CubedSphere mesh(ne, p);
    } catch (const exadnn::Error& e) {
      return std::string(e.what());
    }
    return std::string();
  };
  EXPECT_NE(message(0, 3).find("Ne must be >= 1, got 0"), std::string::npos) << message(0, 3);
  EXPECT_NE(message(-2, 3).find("got -2"), std::string::npos);
  EXPECT_NE(message(4, 0).find("degree p must lie in [1, "), std::string::npos) << message(4, 0);
  EXPECT_NE(message(4, 99).find("got 99"), std::string::npos);
}

}  // namespace
}  // namespace climate
