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

/// relu(batch_norm(...)) as one node: the ReLU applied as the normalised values are written and
/// its mask applied inside batch norm's backward (one pass over the tensor less each way; what
/// Sequential runs for a BatchNorm followed by a ReLU). On CPU in f32 and f64 the same values and
/// gradients as relu(batch_norm(...)) with exadnn's batch norm loops, bit for bit (also when
/// EXADNN_CONV=onednn picks oneDNN's for batch_norm); on a device or dtype without the fused
/// kernels, the two ops.
Tensor batch_norm_relu(const Tensor& x, const Tensor& running_mean, const Tensor& running_var,
                       const Tensor& weight, const Tensor& bias, bool training,
                       double momentum = 0.1, double eps = 1e-5);

}  // namespace exadnn
