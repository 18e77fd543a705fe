// The time loop's guards: a time step above the stability limit refused with the limit named
// (and that limit close to the real one), a Courant number out of range refused, NaN in the
// state stopping the run with the step and the element named, and the run landing on its end time.
#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <limits>
#include <string>

#include "climate/simulation.h"
#include "climate/williamson2.h"
#include "exadnn/core/error.h"
#include "w2_setup.h"

namespace climate {
namespace {

using testing::error_of;
using testing::W2Setup;

TEST(Simulation, TimeStepAboveTheStabilityLimitRefusedNamingTheLimit) {
  W2Setup s(3, 3);
  Simulation sim(s.solver, s.tc.state(s.solver));
  const double limit = sim.max_stable_dt();
  EXPECT_NEAR(limit, s.solver.stable_dt(sim.state(), Simulation::kMaxCfl), 1e-9 * limit);
  EXPECT_NO_THROW(sim.set_dt(limit));
  EXPECT_EQ(sim.dt(), limit);
  const std::string msg = error_of([&] { sim.set_dt(1.01 * limit); });
  EXPECT_NE(msg.find("exceeds the stability limit " + exadnn::detail::cat(limit) + " s"),
            std::string::npos)
      << msg;
  EXPECT_EQ(sim.dt(), limit);  // unchanged
  EXPECT_NE(error_of([&] { sim.set_dt(-1); }).find("must be positive"), std::string::npos);
  EXPECT_NE(error_of([&] {
              Simulation(s.solver, s.tc.state(s.solver), 2.0);
            }).find("Courant number must lie in (0, 0.75], got 2"),
            std::string::npos);
}

// The stability limit is real: RK4 at the limit stays accurate for 3 days, at twice the limit
// the same run blows up (driven directly, past the Simulation's guard).
TEST(Simulation, StabilityLimitIsCloseToTheTrueOne) {
  W2Setup s(3, 3);
  const SwState u0 = s.tc.state(s.solver);
  auto run = [&](double cfl) {
    SwState u = u0;
    Rk4<SwState> rk4;
    const double dt = s.solver.stable_dt(u0, cfl);
    for (double t = 0; t < 3 * kDay; t += dt)
      rk4.step(u, t, dt, [&](double tt, const SwState& y, SwState& d) { s.solver.rhs(tt, y, d); });
    double worst = 0;
    const int npe = s.mesh.nodes_per_element();
    for (int g = 0; g < s.mesh.num_nodes(); ++g) {
      const double d =
          std::abs(u[s.solver.offset(g / npe, 0) + g % npe] - s.tc.height(s.mesh.metric(g).x));
      if (!std::isfinite(d)) return std::numeric_limits<double>::infinity();
      worst = std::max(worst, d);
    }
    return worst;
  };
  const double at_small = run(0.25), at_limit = run(Simulation::kMaxCfl);
  EXPECT_LT(at_limit, 1.5 * at_small) << at_small << " m at Courant 0.25";
  EXPECT_GT(run(2 * Simulation::kMaxCfl), 100 * at_small);
}

TEST(Simulation, NanInTheStateStopsTheRunNamingStepAndElement) {
  W2Setup s(3, 2);
  Simulation sim(s.solver, s.tc.state(s.solver));
  for (int k = 0; k < 3; ++k) sim.step();
  const int bad = 31;  // an element inside cube face 3
  sim.state()[s.solver.offset(bad, 2) + 4] = std::numeric_limits<double>::quiet_NaN();
  const std::string msg = error_of([&] { sim.step(); });
  EXPECT_NE(msg.find("not finite after step 4"), std::string::npos) << msg;
  // The NaN has spread to the elements within four stages' reach; the first one is named.
  const int npe = s.mesh.nodes_per_element();
  int first = -1;
  for (int e = 0; e < s.mesh.num_elements() && first < 0; ++e)
    for (int v = 0; v < ShallowWater::kVars * npe; ++v)
      if (!std::isfinite(sim.state()[s.solver.offset(e, 0) + v])) {
        first = e;
        break;
      }
  ASSERT_GE(first, 0);
  EXPECT_LE(first, bad);
  EXPECT_NE(msg.find("in element " + std::to_string(first) + " (cube face"), std::string::npos)
      << msg;
  // A non-finite initial state is refused before the first step.
  SwState u = s.tc.state(s.solver);
  u[s.solver.offset(7, 0)] = std::numeric_limits<double>::infinity();
  EXPECT_NE(error_of([&] { Simulation(s.solver, u); }).find("after step 0"), std::string::npos);
}

// A flow that speeds up: the Courant-number step follows it; a fixed step that the new state
// cannot bear stops the run after the step, naming the step and the limit.
TEST(Simulation, TimeStepFollowsTheFlowOrStopsTheRun) {
  W2Setup s(3, 3);
  auto faster = [&](Simulation& sim) {
    for (int e = 0; e < s.mesh.num_elements(); ++e)
      for (int v = 1; v <= 3; ++v)
        for (int n = 0; n < s.mesh.nodes_per_element(); ++n)
          sim.state()[s.solver.offset(e, v) + n] *= 8;
  };
  Simulation follow(s.solver, s.tc.state(s.solver), 0.5);
  const double dt0 = follow.dt();
  faster(follow);
  follow.step();
  EXPECT_LT(follow.dt(), 0.9 * dt0);
  EXPECT_NEAR(follow.dt(), s.solver.stable_dt(follow.state(), 0.5), 1e-9 * dt0);

  Simulation fixed(s.solver, s.tc.state(s.solver));
  fixed.set_dt(fixed.max_stable_dt());
  faster(fixed);
  const std::string msg = error_of([&] { fixed.step(); });
  EXPECT_NE(msg.find("after step 1 "), std::string::npos) << msg;
  EXPECT_NE(msg.find("exceeds the stability limit"), std::string::npos) << msg;
}

TEST(Simulation, AdvanceLandsOnTheEndTime) {
  W2Setup s(2, 2);
  // A fixed step: t_end = n dt is n steps; a fraction left over is one short step.
  Simulation sim(s.solver, s.tc.state(s.solver));
  sim.set_dt(0.9 * sim.max_stable_dt());
  const double dt = sim.dt();
  sim.advance_to(10 * dt);
  EXPECT_EQ(sim.steps(), 10);
  sim.advance_to(12.5 * dt);
  EXPECT_EQ(sim.steps(), 13);
  EXPECT_DOUBLE_EQ(sim.time(), 12.5 * dt);
  // A step following the Courant number lands on the end time too.
  Simulation follow(s.solver, s.tc.state(s.solver), 0.5);
  follow.advance_to(kDay / 3);
  EXPECT_DOUBLE_EQ(follow.time(), kDay / 3);
}

}  // namespace
}  // namespace climate
