// Regridding: locating points inverts the gnomonic map, the interpolant is exact for fields that
// are polynomials of degree p in (ξ, η) on each element, and Williamson 2's height and wind on a
// latitude–longitude grid match their formulas to the interpolation and DG errors.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>

#include "climate/diagnostics.h"
#include "climate/regrid.h"
#include "climate/simulation.h"
#include "climate/spherical.h"
#include "climate/williamson2.h"
#include "exadnn/core/error.h"

namespace climate {
namespace {

// The point of face f at the angles (α, β): the forward gnomonic map (cubed_sphere.h).
Vec3 face_point(int f, double alpha, double beta) {
  Vec3 c, e1, e2;
  CubedSphere::face_axes(f, c, e1, e2);
  const Vec3 r = c + std::tan(alpha) * e1 + std::tan(beta) * e2;
  return (kEarthRadius / norm(r)) * r;
}

// A polynomial of degree ≤ p in α and in β separately (so of degree p in ξ and η on every
// element), different on each face.
double face_polynomial(int f, double alpha, double beta, int p) {
  return (f + 1) * std::pow(alpha, p) * beta + 0.7 * std::pow(beta, p) - 0.3 * alpha * alpha +
         std::pow(alpha * beta, p) + f;
}

TEST(Regrid, LocateInvertsTheGnomonicMap) {
  const int ne = 5;
  const CubedSphere mesh(ne, 3);
  std::mt19937 rng(7);
  std::uniform_real_distribution<double> u(-kPi / 4, kPi / 4);
  const double delta = kPi / (2 * ne);
  for (int trial = 0; trial < 600; ++trial) {
    const int f = trial % 6;
    const double alpha = u(rng), beta = u(rng);
    const MeshPoint mp = locate(mesh, face_point(f, alpha, beta));
    // The point's angles back from the element and the reference coordinates.
    ASSERT_EQ(mesh.face(mp.elem), f) << "trial " << trial;
    EXPECT_NEAR(-kPi / 4 + delta * (mesh.ei(mp.elem) + (mp.xi + 1) / 2), alpha, 1e-13);
    EXPECT_NEAR(-kPi / 4 + delta * (mesh.ej(mp.elem) + (mp.eta + 1) / 2), beta, 1e-13);
  }
  // The nodes themselves: each lies in its own element (or on a shared edge).
  for (int g = 0; g < mesh.num_nodes(); g += 7) {
    const MeshPoint mp = locate(mesh, mesh.metric(g).x);
    const Vec3& x = mesh.metric(g).x;
    // Re-evaluate the located element's map at (ξ, η): the same point.
    Vec3 c, e1, e2;
    CubedSphere::face_axes(mesh.face(mp.elem), c, e1, e2);
    const Vec3 y =
        face_point(mesh.face(mp.elem), -kPi / 4 + delta * (mesh.ei(mp.elem) + (mp.xi + 1) / 2),
                   -kPi / 4 + delta * (mesh.ej(mp.elem) + (mp.eta + 1) / 2));
    EXPECT_LT(norm(x - y), 1e-8) << "node " << g;  // metres, on a 6.4e6 m sphere
  }
  EXPECT_THROW(locate(mesh, {0, 0, 0}), exadnn::Error);
}

TEST(Regrid, InterpolantIsExactForPolynomialsOfDegreeP) {
  for (const int p : {2, 4, 7}) {
    const int ne = 3;
    const CubedSphere mesh(ne, p);
    const int np = p + 1, npe = np * np;
    const double delta = kPi / (2 * ne);
    std::vector<double> field(mesh.num_nodes());
    for (int e = 0; e < mesh.num_elements(); ++e)
      for (int j = 0; j < np; ++j)
        for (int i = 0; i < np; ++i) {
          const double alpha = -kPi / 4 + delta * (mesh.ei(e) + (mesh.basis().nodes[i] + 1) / 2);
          const double beta = -kPi / 4 + delta * (mesh.ej(e) + (mesh.basis().nodes[j] + 1) / 2);
          field[e * npe + j * np + i] = face_polynomial(mesh.face(e), alpha, beta, p);
        }
    std::mt19937 rng(p);
    std::uniform_real_distribution<double> u(-kPi / 4, kPi / 4);
    std::vector<Vec3> points;
    std::vector<double> expected;
    for (int k = 0; k < 300; ++k) {
      const int f = k % 6;
      const double alpha = u(rng), beta = u(rng);
      points.push_back(face_point(f, alpha, beta));
      expected.push_back(face_polynomial(f, alpha, beta, p));
    }
    const PointInterpolator interp(mesh, points);
    const std::vector<double> got = interp.apply(field);
    for (std::size_t k = 0; k < points.size(); ++k)
      EXPECT_NEAR(got[k], expected[k], 1e-12 * (1 + std::abs(expected[k]))) << "p " << p;
  }
}

TEST(Regrid, RefusesBadInput) {
  const CubedSphere mesh(2, 2);
  const PointInterpolator interp(mesh, {{1, 0, 0}});
  EXPECT_THROW(interp.apply(std::vector<double>(5)), exadnn::Error);
  EXPECT_THROW(LatLonGrid(0, 10), exadnn::Error);
  EXPECT_THROW(LatLonGrid(10, -1), exadnn::Error);
}

TEST(Regrid, LatLonGridIsCellCentred) {
  const LatLonGrid grid(90, 180);
  EXPECT_DOUBLE_EQ(grid.lat_deg(0), -89.0);
  EXPECT_DOUBLE_EQ(grid.lat_deg(89), 89.0);
  EXPECT_DOUBLE_EQ(grid.lon_deg(0), -179.0);
  EXPECT_DOUBLE_EQ(grid.lon_deg(179), 179.0);
  const std::vector<Vec3> pts = grid.points(kEarthRadius);
  ASSERT_EQ(pts.size(), 90u * 180u);
  const LatLon ll(pts[45 * 180 + 90]);  // latitude index 45, longitude index 90
  EXPECT_NEAR(ll.lat * 180 / kPi, 1.0, 1e-12);
  EXPECT_NEAR(ll.lon * 180 / kPi, 1.0, 1e-12);
}

// The largest errors of the regridded Williamson 2 (α = 0) fields against the formulas:
// h [m] and the wind (u − u0 cos φ, v) [m/s], after `days` (0: the initial state).
struct RegridErrors {
  double h, wind, nodal_h;
};
RegridErrors williamson2_regrid_errors(int ne, int p, double days) {
  const CubedSphere mesh(ne, p);
  const Williamson2 tc;
  const ShallowWater solver(mesh, tc.params());
  Simulation sim(solver, tc.state(solver), 0.5);
  sim.advance_to(days * kDay);
  const LatLonGrid grid(45, 90);
  const std::vector<Vec3> pts = grid.points(mesh.radius());
  const PointInterpolator interp(mesh, pts);
  const LatLonFields f = regrid_state(interp, solver, sim.state());
  RegridErrors err{0, 0, 0};
  for (std::size_t k = 0; k < pts.size(); ++k) {
    const LatLon ll(pts[k]);
    err.h = std::max(err.h, std::abs(f.h[k] - tc.height(pts[k])));
    err.wind = std::max(err.wind, std::hypot(f.u[k] - tc.u0 * std::cos(ll.lat), f.v[k]));
  }
  for (int e = 0; e < mesh.num_elements(); ++e)
    for (int n = 0; n < mesh.nodes_per_element(); ++n)
      err.nodal_h = std::max(err.nodal_h,
                             std::abs(sim.state()[solver.offset(e, 0) + n] -
                                      tc.height(mesh.metric(e * mesh.nodes_per_element() + n).x)));
  return err;
}

// The Lebesgue constant of the 2-D LGL interpolant of degree p: max over (ξ, η) of
// Σ |ℓ_i(ξ)| |ℓ_j(η)| (sampled finely), the most the interpolant can amplify nodal values.
double lebesgue_2d(int p) {
  const LglBasis basis(p);
  std::vector<double> l(p + 1);
  double m = 0;
  for (int k = 0; k <= 4000; ++k) {
    lagrange_values(basis, -1 + 2.0 * k / 4000, l.data());
    double s = 0;
    for (double v : l) s += std::abs(v);
    m = std::max(m, s);
  }
  return m * m;
}

TEST(Regrid, Williamson2OnLatLonMatchesTheFormulaToTheInterpolationError) {
  const int p = 4;
  // The initial state is the interpolant of the exact fields: the regridded error is the
  // interpolation error, O(Δ^{p+1}): it falls by at least 2^p when Ne doubles.
  const RegridErrors e4 = williamson2_regrid_errors(4, p, 0),
                     e8 = williamson2_regrid_errors(8, p, 0);
  std::printf("initial: h %.3e -> %.3e m, wind %.3e -> %.3e m/s\n", e4.h, e8.h, e4.wind, e8.wind);
  EXPECT_EQ(e4.nodal_h, 0.0);
  EXPECT_GT(observed_order(e4.h, e8.h, 2.0), p);
  EXPECT_GT(observed_order(e4.wind, e8.wind, 2.0), p);
  // After one day, the DG error adds at most the Lebesgue constant times the nodal error.
  const RegridErrors d8 = williamson2_regrid_errors(8, p, 1.0);
  std::printf("one day (8, %d): regridded h %.3e m, nodal %.3e m, Lebesgue %.3f\n", p, d8.h,
              d8.nodal_h, lebesgue_2d(p));
  EXPECT_LE(d8.h, e8.h + lebesgue_2d(p) * d8.nodal_h);
}

}  // namespace
}  // namespace climate
