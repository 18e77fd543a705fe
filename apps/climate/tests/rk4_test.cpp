// RK4 alone: fourth-order convergence on y' = λy, for a scalar state and a vector state.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "climate/diagnostics.h"
#include "climate/rk4.h"

namespace climate {
namespace {

// |y(T) − e^{λT}| after n steps of RK4 from y(0) = 1.
double scalar_error(double lambda, double T, int n) {
  Rk4<double> rk4;
  double y = 1;
  const double dt = T / n;
  for (int s = 0; s < n; ++s)
    rk4.step(y, s * dt, dt, [lambda](double, double yy, double& d) { d = lambda * yy; });
  return std::abs(y - std::exp(lambda * T));
}

TEST(Rk4, FourthOrderOnLinearDecay) {
  const double lambda = -2.0, T = 1.0;
  double prev = scalar_error(lambda, T, 10);
  for (int n = 20; n <= 80; n *= 2) {
    const double err = scalar_error(lambda, T, n);
    const double order = observed_order(prev, err, 2.0);
    EXPECT_GE(order, 3.8) << n << " steps: error " << err;
    EXPECT_LE(order, 4.2) << n << " steps: error " << err;
    prev = err;
  }
}

// A vector state: a harmonic oscillator y'' = −ω² y as (y, y'), λ = ±iω, and a non-autonomous
// right-hand side (y' = cos t) that checks the stage times.
TEST(Rk4, FourthOrderOnAVectorStateAndStageTimes) {
  const double w = 3.0, T = 2.0;
  auto run = [&](int n, double& osc_err, double& time_err) {
    Rk4<std::vector<double>> rk4;
    std::vector<double> y = {1.0, 0.0, 0.0};
    const double dt = T / n;
    for (int s = 0; s < n; ++s)
      rk4.step(y, s * dt, dt, [w](double t, const std::vector<double>& q, std::vector<double>& d) {
        d.resize(3);
        d[0] = q[1];
        d[1] = -w * w * q[0];
        d[2] = std::cos(t);
      });
    osc_err = std::hypot(y[0] - std::cos(w * T), y[1] + w * std::sin(w * T));
    time_err = std::abs(y[2] - std::sin(T));
  };
  double o1, t1, o2, t2;
  run(40, o1, t1);
  run(80, o2, t2);
  EXPECT_GE(observed_order(o1, o2, 2.0), 3.8);
  EXPECT_LE(observed_order(o1, o2, 2.0), 4.2);
  EXPECT_GE(observed_order(t1, t2, 2.0), 3.8);
  EXPECT_LE(observed_order(t1, t2, 2.0), 4.2);
}

}  // namespace
}  // namespace climate
