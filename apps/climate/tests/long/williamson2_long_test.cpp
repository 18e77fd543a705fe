// Williamson 2, the full checks (label long): one day at Ne 4 → 8 → 16 (p = 3) converging
// at order ≥ p + 0.5, exponential convergence in p at Ne 4 up to p = 8, and five days at
// (Ne, p) = (5, 3), α = 0: mass to 1e-13 and the height error against the published DG value
// (normalized l2(h) 1.14e-4, l∞ 6.07e-4; TrixiAtmo's regression run, same mesh and degree), and
// the same comparison at one day, the time span that run actually has (README.md, "Against the
// published DG value").
// Every figure is printed; README.md quotes them.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>

#include "climate/diagnostics.h"
#include "climate/simulation.h"
#include "climate/williamson2.h"

namespace climate {
namespace {

struct W2Run {
  ErrorNorms err;           // Williamson's normalized errors
  double l2_abs, linf_abs;  // [m]: √(mean of (h − h_T)² over the sphere), max |h − h_T|
  double mass_drift;        // |M(T) − M(0)| / M(0)
};

W2Run run_williamson2(int ne, int p, double alpha, double days,
                      VolumeForm form = VolumeForm::split) {
  const CubedSphere mesh(ne, p);
  Williamson2 tc;
  tc.alpha = alpha;
  ShallowWaterParams params = tc.params();
  params.volume = form;
  const ShallowWater solver(mesh, params);
  Simulation sim(solver, tc.state(solver), 0.5);
  const double m0 = solver.mass(sim.state());
  sim.advance_to(days * kDay);
  const auto exact = [&tc](const Vec3& x) { return tc.height(x); };
  W2Run r;
  r.err = height_errors(solver, sim.state(), exact);
  // The absolute errors: from the normalized ones and the exact field's norms.
  double sq = 0, mx = 0;
  for (int g = 0; g < mesh.num_nodes(); ++g) {
    const double h = exact(mesh.metric(g).x);
    sq += mesh.area_weight(g) * h * h;
    mx = std::max(mx, std::abs(h));
  }
  r.l2_abs = r.err.l2 * std::sqrt(sq / mesh.area());
  r.linf_abs = r.err.linf * mx;
  r.mass_drift = std::abs(solver.mass(sim.state()) - m0) / m0;
  std::printf(
      "W2 %s alpha %.4f Ne %2d p %d %g days: l1 %.3e l2 %.3e linf %.3e (l2 %.4f m, linf %.4f m), "
      "mass drift %.1e, %ld steps of %.1f s\n",
      form == VolumeForm::split ? "split" : "divergence", alpha, ne, p, days, r.err.l1, r.err.l2,
      r.err.linf, r.l2_abs, r.linf_abs, r.mass_drift, sim.steps(), sim.dt());
  return r;
}

TEST(Williamson2Long, OneDayConvergesAtOrderAtLeastPPlusHalfNe4To16) {
  const int p = 3;
  for (const VolumeForm form : {VolumeForm::split, VolumeForm::divergence}) {
    for (const double alpha : {0.0, kPi / 4}) {
      double prev = run_williamson2(4, p, alpha, 1.0, form).err.l2;
      for (int ne = 8; ne <= 16; ne *= 2) {
        const double err = run_williamson2(ne, p, alpha, 1.0, form).err.l2;
        const double order = observed_order(prev, err, 2.0);
        std::printf("  order Ne %d -> %d: %.2f\n", ne / 2, ne, order);
        EXPECT_GE(order, p + 0.5) << "alpha " << alpha << ", Ne " << ne / 2 << " -> " << ne;
        prev = err;
      }
    }
  }
}

TEST(Williamson2Long, OneDayErrorFallsExponentiallyInPAtNe4) {
  double prev = run_williamson2(4, 1, 0.0, 1.0).err.l2;
  for (int p = 2; p <= 8; ++p) {
    const double err = run_williamson2(4, p, 0.0, 1.0).err.l2;
    std::printf("  p %d -> %d: error / %.1f\n", p - 1, p, prev / err);
    EXPECT_LT(err, prev / 4) << "p " << p - 1 << " -> " << p;
    prev = err;
  }
}

TEST(Williamson2Long, FiveDaysAtNe5P3ConservesMassAndMeetsThePublishedDgError) {
  run_williamson2(5, 3, 0.0, 5.0, VolumeForm::divergence);  // for the record
  const W2Run r = run_williamson2(5, 3, 0.0, 5.0);
  EXPECT_LT(r.mass_drift, 1e-13);
  // The published figures (TrixiAtmo's covariant DGSEM) are of a one-day run (the test below);
  // the issue asks them at five days. Printed in Williamson's normalization (above) and as the
  // absolute error over h0 = g h0 / g:
  const double h0 = 2.94e4 / kGravity;
  std::printf(
      "  vs published l2 1.14e-4, linf 6.07e-4: Williamson-normalized %.3e, %.3e; "
      "over h0 %.3e, %.3e\n",
      r.err.l2, r.err.linf, r.l2_abs / h0, r.linf_abs / h0);
  EXPECT_LE(r.err.l2, 1.14e-4);
  EXPECT_LE(r.err.linf, 6.07e-4);
}

// Where the published figures come from: TrixiAtmo's regression test of its covariant DGSEM
// (test/test_2d_shallow_water_covariant.jl, "elixir_geostrophic_balance", polydeg 3, 5 × 5
// cells per face) runs ONE day (its tspan overrides the elixir's five) and asserts l2(h)
// 0.27823 m (√(mean of (h − h_T)²) by the LGL quadrature) and l∞(h) 1.81881 m; over
// √(mean of h_T²) = 2430.3 m and max h_T = h0 = 2998.1 m, Williamson's normalization, these are
// 1.145e-4 and 6.067e-4: the 1.14e-4 and 6.07e-4.
TEST(Williamson2Long, OneDayAtNe5P3MeetsThePublishedDgErrorOverItsOwnTimeSpan) {
  run_williamson2(5, 3, 0.0, 1.0, VolumeForm::divergence);  // for the record
  const W2Run r = run_williamson2(5, 3, 0.0, 1.0);
  std::printf(
      "  vs TrixiAtmo's one-day run, l2 1.14e-4 (0.2782 m), linf 6.07e-4 (1.8188 m): "
      "Williamson-normalized %.3e, %.3e (%.4f m, %.4f m)\n",
      r.err.l2, r.err.linf, r.l2_abs, r.linf_abs);
  EXPECT_LE(r.err.l2, 1.14e-4);
  EXPECT_LE(r.err.linf, 6.07e-4);
}

}  // namespace
}  // namespace climate
