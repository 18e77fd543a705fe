// The initial states of Williamson 6 and Galewsky: the published jet (maximum wind, the initial
// vorticity extrema +1.124e-4 and −9.83e-5 1/s), gradient-wind balance, the 10 km mean depth, the
// bump; the Rossby–Haurwitz wave travelling east at close to its angular speed ν, mass conserved.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "climate/galewsky.h"
#include "climate/simulation.h"
#include "climate/spherical.h"
#include "climate/williamson6.h"

namespace climate {
namespace {

TEST(Galewsky, JetHasThePublishedMaximumAndVorticityExtrema) {
  const Galewsky g;
  EXPECT_NEAR(g.zonal_wind(kPi / 4), 80.0, 1e-12);
  EXPECT_EQ(g.zonal_wind(Galewsky::kPhi0 - 1e-3), 0.0);
  EXPECT_EQ(g.zonal_wind(Galewsky::kPhi1 + 1e-3), 0.0);
  // ζ(φ) = −(1 / (a cos φ)) d(u cos φ)/dφ, by central differences across the jet.
  const auto ucos = [&g](double phi) { return g.zonal_wind(phi) * std::cos(phi); };
  double zmax = -1, zmin = 1;
  const double d = 1e-6;
  for (double phi = Galewsky::kPhi0 + 1e-4; phi < Galewsky::kPhi1; phi += 1e-4) {
    const double z = -(ucos(phi + d) - ucos(phi - d)) / (2 * d) / (kEarthRadius * std::cos(phi));
    zmax = std::max(zmax, z);
    zmin = std::min(zmin, z);
  }
  EXPECT_NEAR(zmax, 1.124e-4, 0.001e-4) << zmax;
  EXPECT_NEAR(zmin, -9.83e-5, 0.01e-5) << zmin;
}

TEST(Galewsky, HeightInGradientWindBalanceWithATenKilometreMean) {
  const Galewsky g(false);
  // g dh/dφ = −a u (f + tan φ u / a), checked by central differences.
  for (double phi : {0.5, 0.7, 0.785, 0.9, 1.1}) {
    const double d = 1e-5;
    const double dh = (g.balanced_height(phi + d) - g.balanced_height(phi - d)) / (2 * d);
    const double u = g.zonal_wind(phi);
    const double rhs =
        -kEarthRadius * u * (2 * kEarthOmega * std::sin(phi) + std::tan(phi) * u / kEarthRadius);
    // Compared with the integrand's scale a u_max 2Ω (≈ 7e4 m²/s²).
    EXPECT_NEAR(kGravity * dh, rhs, 1e-7 * kEarthRadius * 80 * 2 * kEarthOmega) << "phi " << phi;
  }
  // The mean depth by the mesh's quadrature (independent of the 1-D integral that set h0).
  const CubedSphere mesh(12, 6);
  const ShallowWater solver(mesh, g.params());
  EXPECT_NEAR(solver.mass(g.state(solver)) / mesh.area(), 10000.0, 1e-5);
  // Flat outside the jet: the southern hemisphere at one height, the pole at a lower one.
  EXPECT_DOUBLE_EQ(g.balanced_height(-1.0), g.balanced_height(0.3));
  EXPECT_LT(g.balanced_height(1.5), g.balanced_height(0.3) - 500);
}

TEST(Galewsky, BumpIsThePublishedOne) {
  const Galewsky with(true), without(false);
  EXPECT_NEAR(with.bump(kPi / 4, 0.0), 120 * std::cos(kPi / 4), 1e-12);
  EXPECT_NEAR(with.bump(kPi / 4 + 1.0 / 15, 1.0 / 3),
              120 * std::cos(kPi / 4 + 1.0 / 15) * std::exp(-2.0), 1e-12);
  EXPECT_EQ(without.bump(kPi / 4, 0.0), 0.0);
  const Vec3 x = {std::cos(kPi / 4) * kEarthRadius, 0.0, std::sin(kPi / 4) * kEarthRadius};
  EXPECT_NEAR(with.height(x) - without.height(x), 120 * std::cos(kPi / 4), 1e-9);
}

TEST(Williamson6, WaveTravelsEastAtCloseToItsAngularSpeedConservingMass) {
  const CubedSphere mesh(4, 4);
  const Williamson6 tc;
  const ShallowWater solver(mesh, tc.params());
  Simulation sim(solver, tc.state(solver), 0.5);
  const double m0 = solver.mass(sim.state());
  sim.advance_to(kDay);
  EXPECT_LT(std::abs(solver.mass(sim.state()) - m0), 1e-13 * m0);
  // ν = (R(3 + R)ω − 2Ω) / ((1 + R)(2 + R)): the height after a day is much closer to the initial
  // one turned east by ν t than to the initial one where it was.
  const double R = tc.r;
  const double nu = (R * (3 + R) * tc.omega_w - 2 * tc.omega) / ((1 + R) * (2 + R));
  const double c = std::cos(-nu * kDay), s = std::sin(-nu * kDay);
  const int npe = mesh.nodes_per_element();
  double still = 0, moved = 0;
  for (int g = 0; g < mesh.num_nodes(); ++g) {
    const Vec3& x = mesh.metric(g).x;
    const Vec3 back = {c * x[0] - s * x[1], s * x[0] + c * x[1], x[2]};
    const double h = sim.state()[solver.offset(g / npe, 0) + g % npe];
    still = std::max(still, std::abs(h - tc.height(x)));
    moved = std::max(moved, std::abs(h - tc.height(back)));
  }
  EXPECT_LT(moved, still / 4) << "max |h - h0| " << still << " m, turned by nu t: " << moved;
}

TEST(Williamson6, HeightAndWindAreFiniteAtThePoles) {
  const Williamson6 tc;
  for (double z : {1.0, -1.0}) {
    const Vec3 pole = {0, 0, z * kEarthRadius};
    EXPECT_TRUE(std::isfinite(tc.height(pole)));
    EXPECT_NEAR(norm(tc.velocity(pole)), 0.0, 1e-9);
  }
}

}  // namespace
}  // namespace climate
