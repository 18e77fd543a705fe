// The exponential modal filter: it leaves polynomials below the cutoff alone and multiplies the
// top Legendre mode by e^−α (1-D matrix), keeps the mass of any state to round-off and the
// momentum tangent, is the identity at strength 0, and refuses bad parameters by name.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>

#include "climate/modal_filter.h"
#include "climate/simulation.h"
#include "climate/williamson2.h"
#include "exadnn/core/error.h"

namespace climate {
namespace {

// u ← F u on one line of nodes.
std::vector<double> filter_line(const ModalFilter& f, const std::vector<double>& u) {
  const int n = int(u.size());
  std::vector<double> out(n, 0.0);
  for (int i = 0; i < n; ++i)
    for (int l = 0; l < n; ++l) out[i] += f.matrix()[i * n + l] * u[l];
  return out;
}

TEST(ModalFilter, KeepsLowDegreesAndDampsTheTopModeByItsFactor) {
  const CubedSphere mesh(2, 6);
  const ShallowWater solver(mesh);
  const ModalFilter f(solver, {2.0, 4, 0.5});  // modes 0..3 kept, mode 6 × e^-2
  const LglBasis& b = mesh.basis();
  EXPECT_DOUBLE_EQ(f.damping()[3], 1.0);
  EXPECT_NEAR(f.damping()[6], std::exp(-2.0), 1e-15);
  EXPECT_LT(f.damping()[5], f.damping()[4]);
  // A cubic (degree 3 = η_c p) passes unchanged.
  std::vector<double> cubic(b.size), top(b.size);
  for (int i = 0; i < b.size; ++i) {
    const double x = b.nodes[i];
    cubic[i] = 0.3 - x + 2 * x * x * x;
    double d;
    legendre(6, x, top[i], d);
  }
  const std::vector<double> fc = filter_line(f, cubic), ft = filter_line(f, top);
  for (int i = 0; i < b.size; ++i) {
    EXPECT_NEAR(fc[i], cubic[i], 1e-14) << "node " << i;
    EXPECT_NEAR(ft[i], std::exp(-2.0) * top[i], 1e-14) << "node " << i;
  }
}

TEST(ModalFilter, StrengthZeroIsTheIdentity) {
  const CubedSphere mesh(2, 4);
  const ShallowWater solver(mesh);
  const SwState U0 = Williamson2{}.state(solver);
  SwState U = U0;
  ModalFilter(solver, {0.0, 16, 0}).apply(U);
  double scale = 0;  // the largest value (momentum ~1e5 m²/s): round-off is relative to it
  for (const double v : U0) scale = std::max(scale, std::abs(v));
  for (size_t i = 0; i < U.size(); ++i) EXPECT_NEAR(U[i], U0[i], 1e-14 * scale) << "value " << i;
}

TEST(ModalFilter, KeepsTheMassOfAnyStateAndTheMomentumTangent) {
  const CubedSphere mesh(3, 5);
  const ShallowWater solver(mesh);
  std::mt19937 rng(11);
  std::uniform_real_distribution<double> h(1000, 5000), u(-50, 50);
  SwState U = solver.make_state([&](const Vec3&, double& hh, Vec3& uu) {
    hh = h(rng);
    uu = {u(rng), u(rng), u(rng)};
  });
  const SwState before = U;
  const double mass = solver.mass(U);
  ModalFilter(solver, {36.0, 4, 0}).apply(U);
  EXPECT_NEAR(solver.mass(U), mass, 1e-14 * mass);
  double change = 0;
  const int npe = mesh.nodes_per_element();
  for (int e = 0; e < mesh.num_elements(); ++e)
    for (int a = 0; a < npe; ++a) {
      change =
          std::max(change, std::abs(U[solver.offset(e, 0) + a] - before[solver.offset(e, 0) + a]));
      const Vec3 m = {U[solver.offset(e, 1) + a], U[solver.offset(e, 2) + a],
                      U[solver.offset(e, 3) + a]};
      EXPECT_LT(std::abs(dot(m, mesh.metric(e * npe + a).n)), 1e-9 * (1 + norm(m)));
    }
  EXPECT_GT(change, 100.0);  // a noisy field is smoothed (noise of ±2000 m)
}

TEST(ModalFilter, BadParametersAndAForeignSolverAreRefused) {
  const CubedSphere mesh(2, 3), other_mesh(2, 3);
  const ShallowWater solver(mesh), other(other_mesh);
  EXPECT_THROW(ModalFilter(solver, {-1.0, 16, 0}), exadnn::Error);
  EXPECT_THROW(ModalFilter(solver, {36.0, 3, 0}), exadnn::Error);
  EXPECT_THROW(ModalFilter(solver, {36.0, 16, 1.0}), exadnn::Error);
  const ModalFilter f(other, {36.0, 16, 0});
  Simulation sim(solver, Williamson2{}.state(solver));
  EXPECT_THROW(sim.set_filter(&f), exadnn::Error);
  SwState wrong(3);
  EXPECT_THROW(f.apply(wrong), exadnn::Error);
}

}  // namespace
}  // namespace climate
