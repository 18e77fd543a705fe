// clip_grad_norm beyond the PyTorch reference (reference_test.cpp): parameters without a
// gradient, large gradients (parallel sum of squares), non-finite norms, argument checks.
#include <cmath>
#include <limits>
#include <vector>

#include "optim_test_util.h"

using namespace exadnn;
using namespace exadnn::testing::optim_util;
using exadnn::testing::all_close;
using exadnn::testing::tolerance_for;
using exadnn::testing::values;

namespace {

TEST(ClipGradNorm, IgnoresParametersWithoutGradient) {
  Tensor a = make_param({2}, 0.0), b = make_param({3}, 1.0);
  a.set_grad(from_vector<double>({3.0, 4.0}));
  EXPECT_DOUBLE_EQ(optim::clip_grad_norm({a, b}, 1.0), 5.0);
  EXPECT_TRUE(
      all_close(a.grad(), {3.0 / (5.0 + 1e-6), 4.0 / (5.0 + 1e-6)}, tolerance_for(DType::f64)));
  EXPECT_FALSE(b.grad().defined());
  // Below the limit nothing changes.
  EXPECT_NEAR(optim::clip_grad_norm({a, b}, 10.0), 1.0, 1e-6);
  EXPECT_EQ(optim::clip_grad_norm({b}, 1.0), 0.0);
}

TEST(ClipGradNorm, LargeGradients) {
  for (DType dtype : {DType::f64, DType::f32}) {
    SCOPED_TRACE(dtype_name(dtype));
    std::vector<Tensor> params{make_param({100001}, 0.0, dtype), make_param({3, 7}, 1.0, dtype)};
    set_grads(params, 1);
    double expected = 0.0;
    for (const Tensor& p : params)
      for (double v : values(p.grad())) expected += v * v;
    expected = std::sqrt(expected);
    const std::vector<double> g0 = values(params[0].grad());
    const double norm = optim::clip_grad_norm(params, 2.0);
    EXPECT_NEAR(norm, expected, 1e-12 * expected);
    const double coef = 2.0 / (expected + 1e-6);
    std::vector<double> scaled(g0);
    for (double& v : scaled) v *= coef;
    EXPECT_TRUE(all_close(params[0].grad(), scaled, tolerance_for(dtype)));
    EXPECT_NEAR(optim::clip_grad_norm(params, 1e9), 2.0, 1e-5);
  }
}

TEST(ClipGradNorm, NonFiniteNorm) {
  Tensor a = make_param({2}, 0.0);
  a.set_grad(from_vector<double>({std::numeric_limits<double>::infinity(), 1.0}));
  EXPECT_TRUE(std::isinf(optim::clip_grad_norm({a}, 1.0)));
  Tensor b = make_param({2}, 0.0);
  b.set_grad(from_vector<double>({std::nan(""), 1.0}));
  EXPECT_TRUE(std::isnan(optim::clip_grad_norm({b}, 1.0)));
  EXPECT_TRUE(std::isnan(values(b.grad())[1]));  // as PyTorch: scaled by NaN
}

TEST(ClipGradNorm, ArgumentChecks) {
  Tensor a = make_param({2}, 0.0);
  EXPECT_EXADNN_ERROR(optim::clip_grad_norm({a}, -1.0), "optim::clip_grad_norm",
                      "invalid max_norm -1");
}

}  // namespace
