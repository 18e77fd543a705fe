// The DG operator's building blocks: the Rusanov flux is consistent and conservative, the
// right-hand side conserves mass to round-off for any state, keeps the momentum tendency tangent,
// and is exactly zero for the h equation of a fluid at rest.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>

#include "climate/rusanov.h"
#include "climate/shallow_water.h"
#include "exadnn/core/error.h"

namespace climate {
namespace {

TEST(Rusanov, ConsistentAndConservative) {
  const Vec3 m = {0.6, 0.0, 0.8};
  const Point4 ql = {3000, 2e4, -1e4, 5e3}, qr = {2900, 1e4, 3e4, -2e3};
  Point4 fstar, fl, exact;
  rusanov_flux(ql, ql, m, kGravity, fstar, fl);
  normal_flux(ql, m, kGravity, exact);
  for (int v = 0; v < 4; ++v) EXPECT_DOUBLE_EQ(fstar[v], exact[v]);
  // The flux from r's side through −m̂ is minus the flux from l's side through m̂.
  Point4 back;
  rusanov_flux(ql, qr, m, kGravity, fstar, fl);
  rusanov_flux(qr, ql, -1.0 * m, kGravity, back, fl);
  for (int v = 0; v < 4; ++v) EXPECT_NEAR(fstar[v], -back[v], 1e-12 * std::abs(fstar[v]));
}

// A random smooth-free state: positive h, arbitrary (then made tangent) velocity.
SwState random_state(const ShallowWater& solver, unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> h(1000, 5000), u(-50, 50);
  return solver.make_state([&](const Vec3&, double& hh, Vec3& uu) {
    hh = h(rng);
    uu = {u(rng), u(rng), u(rng)};
  });
}

TEST(ShallowWater, RightHandSideConservesMassForAnyState) {
  const CubedSphere mesh(3, 4);
  for (const VolumeForm form : {VolumeForm::split, VolumeForm::divergence}) {
    ShallowWaterParams params;
    params.volume = form;
    const ShallowWater solver(mesh, params);
    const SwState U = random_state(solver, 7);
    SwState dU;
    solver.rhs(0, U, dU);
    // Σ w J dh/dt = 0: the interface fluxes telescope. Compared with the size of the terms.
    const int npe = mesh.nodes_per_element();
    double total = 0, scale = 0;
    for (int e = 0; e < mesh.num_elements(); ++e)
      for (int n = 0; n < npe; ++n) {
        total += mesh.area_weight(e * npe + n) * dU[solver.offset(e, 0) + n];
        scale += mesh.area_weight(e * npe + n) * std::abs(dU[solver.offset(e, 0) + n]);
      }
    EXPECT_LT(std::abs(total), 1e-14 * scale) << total << " of " << scale;
    EXPECT_GT(scale, 0.0);
    // The momentum tendency is tangent at every node.
    for (int e = 0; e < mesh.num_elements(); ++e)
      for (int n = 0; n < npe; ++n) {
        const Vec3 d = {dU[solver.offset(e, 1) + n], dU[solver.offset(e, 2) + n],
                        dU[solver.offset(e, 3) + n]};
        EXPECT_LT(std::abs(dot(d, mesh.metric(e * npe + n).n)), 1e-12 * norm(d) + 1e-300);
      }
  }
}

// For a fluid at rest with uniform h the two volume forms agree: F#(q_i, q_l) = ½ g h² {J a}_il
// and Σ_l 2 D_il {J a}_il = Σ_l D_il J a_l, the rows of D summing to zero. (Catches a wrong factor
// or a wrong metric mean in the two-point flux; its mass flux is checked by convergence.)
TEST(ShallowWater, VolumeFormsAgreeOnAUniformState) {
  const CubedSphere mesh(2, 3);
  ShallowWaterParams split, divergence;
  split.volume = VolumeForm::split;
  divergence.volume = VolumeForm::divergence;
  const ShallowWater a(mesh, split), b(mesh, divergence);
  // h uniform, no velocity: both give g h² / 2 times the discrete divergence of the metric.
  const SwState U = a.make_state([](const Vec3&, double& h, Vec3& u) {
    h = 1000;
    u = {0, 0, 0};
  });
  SwState da, db;
  a.rhs(0, U, da);
  b.rhs(0, U, db);
  double diff = 0, size = 0;
  for (std::size_t k = 0; k < da.size(); ++k) {
    diff = std::max(diff, std::abs(da[k] - db[k]));
    size = std::max(size, std::abs(db[k]));
  }
  EXPECT_LT(diff, 1e-12 * size) << diff << " of " << size;
}

TEST(ShallowWater, FluidAtRestKeepsItsHeight) {
  const CubedSphere mesh(2, 3);
  const ShallowWater solver(mesh);
  const SwState U = solver.make_state([](const Vec3&, double& h, Vec3& u) {
    h = 1000;
    u = {0, 0, 0};
  });
  SwState dU;
  solver.rhs(0, U, dU);
  for (int e = 0; e < mesh.num_elements(); ++e)
    for (int n = 0; n < mesh.nodes_per_element(); ++n) EXPECT_EQ(dU[solver.offset(e, 0) + n], 0.0);
}

TEST(ShallowWater, WrongStateSizeRefused) {
  const CubedSphere mesh(1, 2);
  const ShallowWater solver(mesh);
  SwState U(10), dU;
  EXPECT_THROW(solver.rhs(0, U, dU), exadnn::Error);
}

}  // namespace
}  // namespace climate
