#include "exadnn/nn/batch_norm.h"

#include "exadnn/ops/factories.h"
#include "exadnn/ops/normalization.h"

namespace exadnn::nn {

BatchNorm::BatchNorm(int64_t channels, int64_t spatial_dims, double eps, double momentum,
                     bool affine)
    : channels_(channels), spatial_dims_(spatial_dims), eps_(eps), momentum_(momentum) {
  EXADNN_CHECK(channels > 0, name(), "channels must be positive, got ", channels);
  if (affine) {
    weight = ones({channels});
    bias = zeros({channels});
    register_parameter("weight", &weight);
    register_parameter("bias", &bias);
  }
  running_mean = zeros({channels});
  running_var = ones({channels});
  register_buffer("running_mean", &running_mean);
  register_buffer("running_var", &running_var);
}

std::string BatchNorm::name() const {
  return spatial_dims_ == 2 ? "BatchNorm2d" : "BatchNorm1d";
}

void BatchNorm::check_input(const Tensor& x) const {
  const bool ok = spatial_dims_ == 2 ? x.dim() == 4 : (x.dim() == 2 || x.dim() == 3);
  EXADNN_CHECK(ok && x.size(1) == channels_, name(), "expects input [N, ", channels_,
               spatial_dims_ == 2 ? ", H, W]" : "] or [N, C, L]", ", got ", x.shape());
}

Tensor BatchNorm::forward(const Tensor& x) {
  check_input(x);
  return batch_norm(x, running_mean, running_var, weight, bias, is_training(), momentum_, eps_);
}

Tensor BatchNorm::forward_relu(const Tensor& x) {
  check_input(x);
  return batch_norm_relu(x, running_mean, running_var, weight, bias, is_training(), momentum_,
                         eps_);
}

std::string BatchNorm::extra_repr() const {
  return detail::cat(channels_, ", eps=", eps_, ", momentum=", momentum_);
}

}  // namespace exadnn::nn
