#include "climate/simulation.h"

#include <cmath>
#include <limits>
#include <string>
#include <utility>

#include "exadnn/core/error.h"

namespace climate {

Simulation::Simulation(const ShallowWater& solver, SwState initial, double cfl)
    : Simulation(solver, nullptr, std::move(initial), cfl) {}

Simulation::Simulation(const Distribution& dist, SwState initial, double cfl)
    : Simulation(dist.local(), &dist, std::move(initial), cfl) {}

Simulation::Simulation(const ShallowWater& solver, const Distribution* dist, SwState initial,
                       double cfl)
    : solver_(solver), dist_(dist), state_(std::move(initial)) {
  EXADNN_CHECK(state_.size() == solver.state_size(), "Simulation", "a state of ",
               solver.state_size(), " values expected, got ", state_.size());
  EXADNN_CHECK(cfl > 0 && cfl <= kMaxCfl, "Simulation", "the Courant number must lie in (0, ",
               kMaxCfl, "], got ", cfl);
  check_finite();
  cfl_ = cfl;
  dt_ = stable_dt(cfl);
}

// min over ranks of cfl Δξ / λ_r is cfl Δξ / max λ_r exactly (division rounds monotonically):
// the dt of one process.
double Simulation::stable_dt(double cfl) const {
  const double dt = solver_.stable_dt(state_, cfl);
  return dist_ ? dist_->min_over_ranks(dt) : dt;
}

double Simulation::max_stable_dt() const {
  return stable_dt(kMaxCfl);
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

void Simulation::set_filter(const ModalFilter* filter) {
  EXADNN_CHECK(!filter || &filter->solver() == &solver_, "Simulation",
               "the filter was built for another solver (its elements and mesh must be this "
               "simulation's)");
  filter_ = filter;
}

void Simulation::revisit_dt() {
  if (cfl_ > 0) {
    dt_ = stable_dt(cfl_);
    return;
  }
  const double limit = max_stable_dt();
  EXADNN_CHECK(dt_ <= limit, "Simulation", "after step ", steps_, " (t = ", time_,
               " s) the time step ", dt_, " s exceeds the stability limit ", limit,
               " s of the current state (Courant number ", kMaxCfl, ")");
}

void Simulation::resume(SwState state, double time, long steps) {
  EXADNN_CHECK(state.size() == solver_.state_size(), "Simulation", "a state of ",
               solver_.state_size(), " values expected to resume, got ", state.size());
  EXADNN_CHECK(std::isfinite(time) && time >= 0 && steps >= 0, "Simulation", "resuming at time ",
               time, " s after ", steps, " steps: both must be >= 0");
  state_ = std::move(state);
  time_ = time;
  steps_ = steps;
  check_finite();
  revisit_dt();
}

void Simulation::step() {
  take_step(dt_);
}

void Simulation::take_step(double dt) {
  if (dist_)
    rk4_.step(state_, time_, dt,
              [this](double t, const SwState& y, SwState& dydt) { dist_->rhs(t, y, dydt); });
  else
    rk4_.step(state_, time_, dt,
              [this](double t, const SwState& y, SwState& dydt) { solver_.rhs(t, y, dydt); });
  if (filter_) filter_->apply(state_);
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
  const long values = static_cast<long>(ShallowWater::kVars) * npe;
  // The first value that is not finite, as global element · values + index within the element,
  // the smallest over the ranks (so every rank stops, naming the same one).
  long first = std::numeric_limits<long>::max();
  double bad = 0;
  for (int e = 0; e < solver_.num_local_elements() && first == std::numeric_limits<long>::max();
       ++e) {
    const double* q = state_.data() + solver_.offset(e, 0);
    for (long v = 0; v < values; ++v)
      if (!std::isfinite(q[v])) {
        first = solver_.global_element(e) * values + v;
        bad = q[v];
        break;
      }
  }
  const long local_first = first;
  if (dist_) first = dist_->min_over_ranks(first);
  if (first == std::numeric_limits<long>::max()) return;
  const int e = static_cast<int>(first / values), v = static_cast<int>(first % values);
  // The value itself is known on the rank that owns the element.
  const std::string value = local_first == first ? std::to_string(bad) : "a value on another rank";
  const Vec3& x = mesh.metric(e * npe + v % npe).x;
  const double lat = std::asin(x[2] / norm(x)) * 180 / kPi;
  const double lon = std::atan2(x[1], x[0]) * 180 / kPi;
  EXADNN_CHECK(false, "Simulation", "the state is not finite after step ", steps_, " (t = ", time_,
               " s): ", value, " in element ", e, " (cube face ", mesh.face(e), ", lat ", lat,
               ", lon ", lon, "), variable ", v / npe,
               " (0 h, 1-3 hu); a time step too large, or a state the equations do not allow");
}

}  // namespace climate
