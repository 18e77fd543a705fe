// The heat-equation solver against the scheme's exact discrete solution: on an n x n grid with
// u = 0 on the boundary, u[i][j] = sin(k pi i / (n-1)) sin(l pi j / (n-1)) is an eigenmode of the
// 5-point scheme, multiplied each step by
//   lambda = 1 - 4 r (sin^2(k pi / (2 (n-1))) + sin^2(l pi / (2 (n-1)))).
#include <exadnn/core/error.h>
#include <gtest/gtest.h>

#include <cmath>
#include <numbers>

#include "diffusion/heat2d.h"

using exadnn::apps::diffusion::Heat2d;
using exadnn::apps::diffusion::Heat2dOptions;

namespace {

std::vector<float> mode(int n, int k, int l) {
  std::vector<float> u(static_cast<size_t>(n) * n);
  const double pi = std::numbers::pi;
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j)
      u[i * n + j] =
          static_cast<float>(std::sin(k * pi * i / (n - 1)) * std::sin(l * pi * j / (n - 1)));
  return u;
}

double decay(int n, double r, int k, int l) {
  const double pi = std::numbers::pi;
  const double sk = std::sin(k * pi / (2.0 * (n - 1))), sl = std::sin(l * pi / (2.0 * (n - 1)));
  return 1 - 4 * r * (sk * sk + sl * sl);
}

}  // namespace

TEST(Heat2d, EigenmodesDecayByTheSchemesExactFactor) {
  const int n = 33;
  Heat2dOptions o;
  o.n = n;
  o.r = 0.2;
  o.forcing = 0;
  for (const auto [k, l] : {std::pair{1, 1}, std::pair{3, 2}, std::pair{7, 5}}) {
    Heat2d heat(o);
    heat.set_field(mode(n, k, l));
    const int steps = 50;
    for (int s = 0; s < steps; ++s) heat.step();
    const double factor = std::pow(decay(n, o.r, k, l), steps);
    const std::vector<float> start = mode(n, k, l);
    double worst = 0;
    for (size_t p = 0; p < start.size(); ++p)
      worst = std::max(worst, std::abs(heat.field()[p] - factor * start[p]));
    EXPECT_LT(worst, 1e-5) << "mode (" << k << ", " << l << "), factor " << factor;
  }
}

TEST(Heat2d, TheStencilIsTheSchemesAndUnstableStepsAreRefused) {
  Heat2dOptions o;
  o.r = 0.1;
  EXPECT_EQ(Heat2d(o).stencil(), (std::vector<double>{0, 0.1, 0, 0.1, 0.6, 0.1, 0, 0.1, 0}));
  o.r = 0.25;
  try {
    Heat2d unstable(o);
    ADD_FAILURE() << "r = 0.25 was accepted";
  } catch (const exadnn::Error& e) {
    EXPECT_NE(std::string(e.what()).find("stability limit is r < 1/4"), std::string::npos)
        << e.what();
  }
  o.r = 0.2;
  o.n = 3;
  EXPECT_THROW(Heat2d{o}, exadnn::Error);
}

TEST(Heat2d, TheSameSeedGivesTheSameRun) {
  Heat2dOptions o;
  o.n = 16;
  Heat2d a(o), b(o);
  a.random_start(2);
  b.random_start(2);
  for (int s = 0; s < 10; ++s) {
    a.step();
    b.step();
  }
  EXPECT_EQ(a.field(), b.field());
  b.random_start(3);
  EXPECT_NE(a.field(), b.field());
}
