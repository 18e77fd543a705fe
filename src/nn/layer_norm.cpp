#include "exadnn/nn/container.h"
#include "exadnn/ops/elementwise.h"
#include "exadnn/ops/factories.h"
#include "exadnn/ops/operators.h"
#include "exadnn/ops/reduction.h"

namespace exadnn::nn {

LayerNorm::LayerNorm(const Shape& normalized_shape, double eps, bool affine)
    : shape_(normalized_shape), eps_(eps) {
  EXADNN_CHECK(!normalized_shape.empty(), "LayerNorm", "normalized_shape must not be empty");
  if (affine) {
    weight = ones(normalized_shape);
    bias = zeros(normalized_shape);
    register_parameter("weight", &weight);
    register_parameter("bias", &bias);
  }
}

Tensor LayerNorm::forward(const Tensor& x) {
  const int64_t k = shape_.size();
  EXADNN_CHECK(x.dim() >= k, "LayerNorm", "input of shape ", x.shape(), " is shorter than ",
               shape_);
  for (int64_t i = 0; i < k; ++i)
    EXADNN_CHECK(x.size(x.dim() - k + i) == shape_[i], "LayerNorm", "input of shape ", x.shape(),
                 " does not end in ", shape_);
  Axes axes;
  for (int64_t i = 0; i < k; ++i) axes.push_back(x.dim() - k + i);
  const Tensor centered = x - mean(x, axes, true);
  const Tensor var = mean(centered * centered, axes, true);
  Tensor y = centered / sqrt(var + eps_);
  return weight.defined() ? y * weight + bias : y;
}

std::string LayerNorm::extra_repr() const {
  return detail::cat(shape_, ", eps=", eps_);
}

}  // namespace exadnn::nn
