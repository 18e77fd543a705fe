#include "climate/simulation.h"

#include <cmath>
#include <utility>

#include "exadnn/core/error.h"

namespace climate {

Simulation::Simulation(const ShallowWater& solver, SwState initial, double cfl)
    : solver_(solver), state_(std::move(initial)) {
  EXADNN_CHECK(state_.size() == solver.state_size(), "Simulation", "a state of ",
               solver.state_size(), " values expected, got ", state_.size());
  EXADNN_CHECK(cfl > 0 && cfl <= kMaxCfl, "Simulation", "the Courant number must lie in (0, ",
               kMaxCfl, "], got ", cfl);
  check_finite();
  cfl_ = cfl;
  dt_ = solver.stable_dt(state_, cfl);
}

double Simulation::max_stable_dt() const {
  return solver_.stable_dt(state_, kMaxCfl);
}

void Simulation::set_dt(double dt) {
  const double limit = max_stable_dt();
  EXADNN_CHECK(dt > 0 && std::isfinite(dt), "Simulation", "the time step must be positive, got ",
               dt, " s");
  EXADNN_CHECK(dt <= limit, "Simulation", "the time step ", dt, " s exceeds the stability limit ",
               limit, " s (Courant number ", kMaxCfl, " for Ne = ", solver_.mesh().ne(),
               ", p = ", solver_.mesh().degree(), ")");
  dt_ = dt;
  cfl_ = 0;
}

void Simulation::revisit_dt() {
  if (cfl_ > 0) {
    dt_ = solver_.stable_dt(state_, cfl_);
    return;
  }
  const double limit = max_stable_dt();
  EXADNN_CHECK(dt_ <= limit, "Simulation", "after step ", steps_, " (t = ", time_,
               " s) the time step ", dt_, " s exceeds the stability limit ", limit,
               " s of the current state (Courant number ", kMaxCfl, ")");
}

void Simulation::step() {
  take_step(dt_);
}

void Simulation::take_step(double dt) {
  rk4_.step(state_, time_, dt,
            [this](double t, const SwState& y, SwState& dydt) { solver_.rhs(t, y, dydt); });
  time_ += dt;
  ++steps_;
  check_finite();
  revisit_dt();
}

void Simulation::advance_to(double t_end) {
  // Steps of dt while a full one fits (to a relative 1e-9 of dt, so that t_end = n dt is n
  // steps), then one short step onto t_end.
  while (t_end - time_ > 1e-9 * dt_) {
    const double dt = t_end - time_ < dt_ * (1 + 1e-9) ? t_end - time_ : dt_;
    take_step(dt);
  }
}

void Simulation::check_finite() const {
  const CubedSphere& mesh = solver_.mesh();
  const int npe = mesh.nodes_per_element();
  for (int e = 0; e < mesh.num_elements(); ++e) {
    const double* q = state_.data() + solver_.offset(e, 0);
    for (int v = 0; v < ShallowWater::kVars * npe; ++v) {
      if (std::isfinite(q[v])) continue;
      const Vec3& x = mesh.metric(e * npe + v % npe).x;
      const double lat = std::asin(x[2] / norm(x)) * 180 / kPi;
      const double lon = std::atan2(x[1], x[0]) * 180 / kPi;
      EXADNN_CHECK(false, "Simulation", "the state is not finite after step ", steps_,
                   " (t = ", time_, " s): ", q[v], " in element ", e, " (cube face ", mesh.face(e),
                   ", lat ", lat, ", lon ", lon, "), variable ", v / npe,
                   " (0 h, 1-3 hu); a time step too large, or a state the equations do not allow");
    }
  }
}

}  // namespace climate
