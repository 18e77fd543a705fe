// The time loop of the shallow-water solver: RK4 at a fixed time step, chosen from a Courant
// number or given (and then refused above the stability limit), with the state checked for NaN
// or infinity after every step.
#pragma once

#include "climate/modal_filter.h"
#include "climate/rk4.h"
#include "climate/shallow_water.h"

namespace climate {

/// What the time loop needs when the elements are spread over ranks (DistributedShallowWater in
/// distributed.h implements it over MPI), so that the loop itself needs no MPI: the right-hand
/// side with the trace exchange, and the reductions over ranks. Every call is collective.
class Distribution {
 public:
  virtual ~Distribution() = default;
  /// This rank's solver (its elements, the local state's layout).
  virtual const ShallowWater& local() const = 0;
  /// dU/dt of this rank's elements, the neighbours' traces exchanged with the other ranks.
  virtual void rhs(double t, const SwState& U, SwState& dU) const = 0;
  /// The smallest of every rank's v.
  virtual double min_over_ranks(double v) const = 0;
  virtual long min_over_ranks(long v) const = 0;
};

class Simulation {
 public:
  /// The largest Courant number (ShallowWater::stable_dt's definition) at which RK4 with the
  /// DGSEM operator is taken as stable. Measured on Williamson 2 (README.md, "Time step"): the
  /// runs stay bounded up to the measured limit, which this keeps a margin below.
  static constexpr double kMaxCfl = 0.75;

  /// Starts at time 0 from `initial`, with dt from the Courant number `cfl` (0 < cfl ≤ kMaxCfl):
  /// on the initial state, then recomputed from the current state after every step (the flow
  /// may speed up). Keeps a reference to `solver`, which must outlive it.
  Simulation(const ShallowWater& solver, SwState initial, double cfl = 0.5);
  /// The same on one rank of a distributed run: `initial` is this rank's part of the state
  /// (dist.local()'s layout); dt is the smallest over the ranks, a NaN on any rank stops every
  /// rank, so all ranks step alike. Keeps a reference to `dist`.
  Simulation(const Distribution& dist, SwState initial, double cfl = 0.5);

  /// Sets a fixed time step [s] instead; a dt above the stability limit (the dt at kMaxCfl for
  /// the current state) is refused with the limit named, now and after every step (the run then
  /// stops with an exadnn::Error naming the step).
  void set_dt(double dt);
  /// Applies `filter` (built on this simulation's solver; null: none) to the state after every
  /// step, before the NaN check. Keeps the pointer, which must outlive the simulation.
  void set_filter(const ModalFilter* filter);
  /// The stability limit for the current state [s].
  double max_stable_dt() const;

  /// Continues a run from a saved point (restart.h): `state` at time `time` after `steps` steps.
  /// The time step follows from the state as after any step (or stays the fixed one, checked
  /// against the state's limit), so the run goes on as if it had never stopped. The state is
  /// checked like a step's (size, finite).
  void resume(SwState state, double time, long steps);

  /// Steps until time t_end (the last step shortened to land on it). A NaN or infinity in the
  /// state stops the run with an exadnn::Error naming the step, the time and the first element
  /// where it appeared; the state is left as it was after that step.
  void advance_to(double t_end);
  /// One step of dt.
  void step();

  double time() const { return time_; }
  long steps() const { return steps_; }
  double dt() const { return dt_; }
  const SwState& state() const { return state_; }
  SwState& state() { return state_; }
  /// The solver (on a rank of a distributed run: this rank's).
  const ShallowWater& solver() const { return solver_; }

 private:
  Simulation(const ShallowWater& solver, const Distribution* dist, SwState initial, double cfl);
  void take_step(double dt);
  void check_finite() const;
  void revisit_dt();
  // The solver's time step at Courant number cfl, the smallest over the ranks.
  double stable_dt(double cfl) const;

  const ShallowWater& solver_;
  const Distribution* dist_ = nullptr;  // null on one process
  const ModalFilter* filter_ = nullptr;
  SwState state_;
  Rk4<SwState> rk4_;
  double time_ = 0;
  long steps_ = 0;
  double dt_ = 0;
  double cfl_ = 0;  // the Courant number dt follows; 0 once set_dt fixed it
};

}  // namespace climate
