// Williamson test case 2 (steady zonal geostrophic flow) in CI sizes: the height error after one
// day converges at order ≥ p + 0.5 under refinement and falls exponentially in p, the error is
// the space discretisation's (not the time step's), mass is conserved to round-off and the
// velocity stays tangent to the sphere. The full checks are in tests/long/.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>

#include "climate/diagnostics.h"
#include "climate/simulation.h"
#include "climate/williamson2.h"

namespace climate {
namespace {

// The normalized height errors of Williamson 2 at flow angle alpha after `days`.
ErrorNorms run_williamson2(int ne, int p, double alpha, double days, double cfl = 0.5,
                           VolumeForm form = VolumeForm::split) {
  const CubedSphere mesh(ne, p);
  Williamson2 tc;
  tc.alpha = alpha;
  ShallowWaterParams params = tc.params();
  params.volume = form;
  const ShallowWater solver(mesh, params);
  Simulation sim(solver, tc.state(solver), cfl);
  sim.advance_to(days * kDay);
  return height_errors(solver, sim.state(), [&tc](const Vec3& x) { return tc.height(x); });
}

TEST(Williamson2, OneDayHeightErrorConvergesAtOrderAtLeastPPlusHalf) {
  const int p = 3;
  // Both volume forms; α = 0: the flow along the equatorial faces; α = π/4: across cube edges
  // and corners.
  for (const VolumeForm form : {VolumeForm::split, VolumeForm::divergence}) {
    for (const double alpha : {0.0, kPi / 4}) {
      double prev = run_williamson2(2, p, alpha, 1.0, 0.5, form).l2;
      for (int ne = 4; ne <= 8; ne *= 2) {
        const double err = run_williamson2(ne, p, alpha, 1.0, 0.5, form).l2;
        const double order = observed_order(prev, err, 2.0);
        const char* name = form == VolumeForm::split ? "split" : "divergence";
        EXPECT_GE(order, p + 0.5) << name << ", alpha " << alpha << ", Ne " << ne / 2 << " -> "
                                  << ne << ": l2 " << prev << " -> " << err;
        std::printf("%s form, alpha %.4f, Ne %d -> %d: l2(h) %.3e -> %.3e, order %.2f\n", name,
                    alpha, ne / 2, ne, prev, err, order);
        prev = err;
      }
    }
  }
}

TEST(Williamson2, ErrorFallsExponentiallyInTheDegree) {
  // At fixed Ne, a constant factor per degree; here at least 4 for every p = 2 … 6.
  double prev = run_williamson2(4, 2, kPi / 4, 1.0).l2;
  for (int p = 3; p <= 6; ++p) {
    const double err = run_williamson2(4, p, kPi / 4, 1.0).l2;
    EXPECT_LT(err, prev / 4) << "p " << p - 1 << " -> " << p;
    prev = err;
  }
}

TEST(Williamson2, ErrorIsTheSpaceDiscretisationsNotTheTimeSteps) {
  // Halving the time step changes the error by under 1 %: the convergence above is in space.
  const double a = run_williamson2(4, 3, kPi / 4, 1.0, 0.5).l2;
  const double b = run_williamson2(4, 3, kPi / 4, 1.0, 0.25).l2;
  EXPECT_LT(std::abs(a - b), 0.01 * b) << a << " vs " << b;
}

TEST(Williamson2, MassConservedAndVelocityTangent) {
  const CubedSphere mesh(4, 3);
  Williamson2 tc;
  tc.alpha = 0.3;
  const ShallowWater solver(mesh, tc.params());
  Simulation sim(solver, tc.state(solver), 0.5);
  const double m0 = solver.mass(sim.state());
  sim.advance_to(1.0 * kDay);
  EXPECT_LT(std::abs(solver.mass(sim.state()) - m0), 1e-13 * m0);
  const int npe = mesh.nodes_per_element();
  double radial = 0, speed = 0;
  for (int e = 0; e < mesh.num_elements(); ++e)
    for (int n = 0; n < npe; ++n) {
      const Vec3 m = {sim.state()[solver.offset(e, 1) + n], sim.state()[solver.offset(e, 2) + n],
                      sim.state()[solver.offset(e, 3) + n]};
      radial = std::max(radial, std::abs(dot(m, mesh.metric(e * npe + n).n)));
      speed = std::max(speed, norm(m));
    }
  EXPECT_LT(radial, 1e-13 * speed);
}

TEST(Williamson2, ExactFieldsAreTheTestCases) {
  // u0 = 2πa / 12 days; g h = g h0 − (aΩu0 + u0²/2) at the flow's poles and g h0 on its
  // equator; u tangent and perpendicular to the axis.
  Williamson2 tc;
  tc.alpha = 0.7;
  EXPECT_NEAR(tc.u0, 38.61068276698372, 1e-9);
  const Vec3 pole = kEarthRadius * tc.axis();
  EXPECT_NEAR(tc.height(pole) * kGravity,
              2.94e4 - (kEarthRadius * kEarthOmega * tc.u0 + tc.u0 * tc.u0 / 2), 1e-9);
  const Vec3 equator = kEarthRadius * cross(tc.axis(), Vec3{0, 1, 0});
  EXPECT_NEAR(tc.height(equator) * kGravity, 2.94e4, 1e-9);
  EXPECT_NEAR(norm(tc.velocity(equator)), tc.u0, 1e-12);
  const Vec3 x = {0.3 * kEarthRadius, -0.8 * kEarthRadius, std::sqrt(0.27) * kEarthRadius};
  EXPECT_NEAR(dot(tc.velocity(x), x), 0.0, 1e-6);
  EXPECT_NEAR(dot(tc.velocity(x), tc.axis()), 0.0, 1e-12);
}

TEST(Williamson2, RelativeVorticityOfTheSolidBodyRotation) {
  // u = (u0/a) k_α × x has ζ = 2 (u0/a) (k_α · n) everywhere; the nodal curl converges to it
  // exponentially in p (the velocity is smooth, the map is not polynomial).
  Williamson2 tc;
  tc.alpha = 0.4;
  const double scale = 2 * tc.u0 / tc.radius;
  double prev = 1;
  for (int p = 2; p <= 8; p += 2) {
    const CubedSphere mesh(4, p);
    const ShallowWater solver(mesh, tc.params());
    const std::vector<double> zeta = relative_vorticity(solver, tc.state(solver));
    double worst = 0;
    for (int g = 0; g < mesh.num_nodes(); ++g)
      worst = std::max(worst, std::abs(zeta[g] - scale * dot(tc.axis(), mesh.metric(g).n)));
    std::printf("vorticity of the solid-body rotation, Ne 4 p %d: max error %.2e of 2u0/a\n", p,
                worst / scale);
    EXPECT_LT(worst, prev / 10) << "p " << p;
    prev = worst;
  }
  EXPECT_LT(prev, 1e-6 * scale);
}

}  // namespace
}  // namespace climate
