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

// The split-form volume terms of one element, node pair by node pair, in the order the kernel
// promises to keep (shallow_water.cpp computes four elements at once in SIMD lanes): the
// two-point flux of each pair (a, b) along each direction, given to both nodes.
std::vector<double> split_volume_one_element(const CubedSphere& mesh, int elem, const double* q,
                                             double g) {
  const int np = mesh.nodes_1d(), npe = np * np;
  const std::vector<double>& D = mesh.basis().diff;
  const NodeMetric* met = &mesh.metric(elem * npe);
  std::vector<double> acc(4 * npe, 0.0), out(4 * npe);
  auto pair = [&](int a, int b, const Vec3& ja_a, const Vec3& ja_b, double d_ab, double d_ba) {
    const Vec3 j = {0.5 * (ja_a[0] + ja_b[0]), 0.5 * (ja_a[1] + ja_b[1]),
                    0.5 * (ja_a[2] + ja_b[2])};
    double m_sum[3], half_u_sum[3];
    for (int c = 0; c < 3; ++c) {
      m_sum[c] = q[(c + 1) * npe + a] + q[(c + 1) * npe + b];
      half_u_sum[c] = q[(c + 1) * npe + a] * (0.5 / q[a]) + q[(c + 1) * npe + b] * (0.5 / q[b]);
    }
    const double fh = 0.5 * (m_sum[0] * j[0] + m_sum[1] * j[1] + m_sum[2] * j[2]);
    const double p = 0.5 * g * q[a] * q[b];
    const double f[4] = {fh, fh * half_u_sum[0] + p * j[0], fh * half_u_sum[1] + p * j[1],
                         fh * half_u_sum[2] + p * j[2]};
    for (int v = 0; v < 4; ++v) {
      acc[v * npe + a] += 2 * d_ab * f[v];
      if (b != a) acc[v * npe + b] += 2 * d_ba * f[v];
    }
  };
  for (int jj = 0; jj < np; ++jj)
    for (int i = 0; i < np; ++i)
      for (int l = i; l < np; ++l) {
        pair(jj * np + i, jj * np + l, met[jj * np + i].ja1, met[jj * np + l].ja1, D[i * np + l],
             D[l * np + i]);
        pair(i * np + jj, l * np + jj, met[i * np + jj].ja2, met[l * np + jj].ja2, D[i * np + l],
             D[l * np + i]);
      }
  for (int n = 0; n < npe; ++n)
    for (int v = 0; v < 4; ++v) out[v * npe + n] = -acc[v * npe + n] * (1 / met[n].jac);
  return out;
}

// The batched kernel gives every element the one-element loop's bits: meshes whose element
// counts leave a last batch of 0 and 2 elements, degrees unrolled at compile time (3, 4) and one
// taken at run time (10).
TEST(ShallowWater, SplitVolumeTermsAreTheOneElementLoopsBitForBit) {
  for (const auto& [ne, p] : {std::pair{2, 3}, std::pair{3, 4}, std::pair{1, 10}}) {
    const CubedSphere mesh(ne, p);
    const ShallowWater solver(mesh);
    const SwState U = random_state(solver, 11);
    SwState dU;
    solver.volume_terms(U, dU);
    long differing = 0;
    for (int e = 0; e < mesh.num_elements(); ++e) {
      const std::vector<double> ref =
          split_volume_one_element(mesh, e, U.data() + solver.offset(e, 0), kGravity);
      for (std::size_t k = 0; k < ref.size(); ++k)
        differing += ref[k] != dU[solver.offset(e, 0) + k];
    }
    EXPECT_EQ(differing, 0) << "(Ne, p) = (" << ne << ", " << p << ")";
  }
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
