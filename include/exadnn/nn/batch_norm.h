// Batch normalisation with running statistics.
#pragma once

#include "exadnn/nn/module.h"

namespace exadnn::nn {

/// Normalises each channel of x ([N, C] or [N, C, L] for 1d, [N, C, H, W] for 2d) with batch
/// statistics in training (updating running_mean/var with `momentum`) and running statistics in
/// eval mode; then scales by γ (weight) and shifts by β (bias).
class BatchNorm : public Module {
 public:
  BatchNorm(int64_t channels, int64_t spatial_dims, double eps = 1e-5, double momentum = 0.1,
            bool affine = true);
  Tensor forward(const Tensor& x) override;
  /// relu(forward(x)) as one node (batch_norm_relu); Sequential's fusion of BatchNorm, ReLU.
  Tensor forward_relu(const Tensor& x);
  std::string name() const override;
  std::string extra_repr() const override;

  Tensor weight, bias;               ///< [C]: ones, zeros
  Tensor running_mean, running_var;  ///< [C]: zeros, ones (buffers)

 private:
  void check_input(const Tensor& x) const;

  int64_t channels_, spatial_dims_;
  double eps_, momentum_;
};

/// BatchNorm over [N, C] or [N, C, L].
class BatchNorm1d : public BatchNorm {
 public:
  explicit BatchNorm1d(int64_t channels, double eps = 1e-5, double momentum = 0.1,
                       bool affine = true)
      : BatchNorm(channels, 1, eps, momentum, affine) {}
};

/// BatchNorm over [N, C, H, W].
class BatchNorm2d : public BatchNorm {
 public:
  explicit BatchNorm2d(int64_t channels, double eps = 1e-5, double momentum = 0.1,
                       bool affine = true)
      : BatchNorm(channels, 2, eps, momentum, affine) {}
};

}  // namespace exadnn::nn
