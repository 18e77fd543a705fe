// The classical fourth-order Runge–Kutta method, generic over the state type.
//
// A State is anything copy-assignable for which `climate::axpy(a, x, y)` (y += a·x) is found:
// overloads for double and std::vector<double> are here; a user type provides its own in its
// namespace (found by argument-dependent lookup). The right-hand side is any callable
// `rhs(t, y, dydt)` that writes dy/dt at time t into dydt (giving it the shape of y first: the
// integrator hands it default-constructed work states on the first step).
#pragma once

#include <cstddef>
#include <utility>
#include <vector>

namespace climate {

/// y += a·x for a scalar state.
inline void axpy(double a, double x, double& y) {
  y += a * x;
}

/// y += a·x elementwise; x and y have the same length.
inline void axpy(double a, const std::vector<double>& x, std::vector<double>& y) {
  const std::size_t n = y.size();
  const double* xs = x.data();
  double* ys = y.data();
  for (std::size_t i = 0; i < n; ++i) ys[i] += a * xs[i];
}

/// One RK4 integrator; keeps three work states between steps so a step allocates nothing once
/// the states have their size.
template <class State>
class Rk4 {
 public:
  /// Advances y from t to t + dt: y ← y + dt/6 (k1 + 2k2 + 2k3 + k4).
  template <class Rhs>
  void step(State& y, double t, double dt, Rhs&& rhs) {
    next_ = y;
    stage_ = y;
    rhs(t, y, k_);
    axpy(dt / 6, k_, next_);
    axpy(dt / 2, k_, stage_);
    rhs(t + dt / 2, stage_, k_);
    axpy(dt / 3, k_, next_);
    stage_ = y;
    axpy(dt / 2, k_, stage_);
    rhs(t + dt / 2, stage_, k_);
    axpy(dt / 3, k_, next_);
    stage_ = y;
    axpy(dt, k_, stage_);
    rhs(t + dt, stage_, k_);
    axpy(dt / 6, k_, next_);
    std::swap(y, next_);
  }

  /// The number of right-hand-side evaluations per step.
  static constexpr int kStages = 4;

 private:
  State next_{}, stage_{}, k_{};
};

}  // namespace climate
