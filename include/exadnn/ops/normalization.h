// Batch normalisation over [N, C, ...] tensors (statistics per channel C).
#pragma once

#include "exadnn/core/tensor.h"

namespace exadnn {

/// y = (x - mean) / sqrt(var + eps) * weight + bias, per channel of x [N, C, ...] (any number of
/// trailing dims, including none). weight and bias [C] may be undefined (1 and 0).
/// training: mean and var are the batch statistics over N and the trailing dims (var biased),
/// and running_mean/running_var [C] (if defined) are updated in place, without recording:
/// running = (1 - momentum) running + momentum batch, with the unbiased batch variance.
/// Otherwise: running_mean/running_var (required) are used. Differentiable w.r.t. x, weight and
/// bias (in training mode through the batch statistics too).
Tensor batch_norm(const Tensor& x, const Tensor& running_mean, const Tensor& running_var,
                  const Tensor& weight, const Tensor& bias, bool training, double momentum = 0.1,
                  double eps = 1e-5);

}  // namespace exadnn
