#include "exadnn/nn/activation.h"

#include <cmath>
#include <numbers>

#include "exadnn/ops/comparison.h"
#include "exadnn/ops/elementwise.h"
#include "exadnn/ops/operators.h"
#include "exadnn/ops/reduction.h"

namespace exadnn::nn {

Tensor gelu(const Tensor& x) {
  const double c = std::sqrt(2.0 / std::numbers::pi);
  return x * 0.5 * (tanh((x + pow(x, 3.0) * 0.044715) * c) + 1.0);
}

Tensor leaky_relu(const Tensor& x, double slope) {
  return where(gt(x, scalar_like(0.0, x)), x, x * slope);
}

Tensor ReLU::forward(const Tensor& x) {
  return relu(x);
}
Tensor LeakyReLU::forward(const Tensor& x) {
  return leaky_relu(x, slope_);
}
std::string LeakyReLU::extra_repr() const {
  return detail::cat("slope=", slope_);
}
Tensor GELU::forward(const Tensor& x) {
  return gelu(x);
}
Tensor Sigmoid::forward(const Tensor& x) {
  return sigmoid(x);
}
Tensor Tanh::forward(const Tensor& x) {
  return tanh(x);
}

Tensor Softmax::forward(const Tensor& x) {
  return exp(x - logsumexp(x, {axis_}, /*keepdim=*/true));
}
std::string Softmax::extra_repr() const {
  return detail::cat("axis=", axis_);
}

}  // namespace exadnn::nn
