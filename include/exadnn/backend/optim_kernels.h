// Signatures of the fused optimizer-update kernels (ops listed in backend/optim_ops.def).
//
// Each kernel updates one parameter in ONE pass over memory: it reads the parameter, its gradient
// and its state buffers and writes the parameter and the buffers, element by element. Every tensor
// passed is dense (contiguous), of the registered dtype, with the parameter's shape; a buffer a
// configuration does not use is passed undefined. The per-element arithmetic follows PyTorch's
// reference (single-tensor) implementation step by step, in the parameter's dtype, so results
// agree with it to rounding. Scalars arrive as doubles; derived scalars (bias corrections, decayed
// learning rates) are computed in double, as PyTorch does, and converted to the dtype once.
#pragma once

#include <cstdint>

#include "exadnn/core/tensor.h"

namespace exadnn {

/// Hyper-parameters of one SGD update.
struct SgdStepParams {
  double lr = 0.0;
  double momentum = 0.0;  ///< 0: no momentum buffer (momentum_buffer is undefined)
  double dampening = 0.0;
  double weight_decay = 0.0;  ///< L2 penalty added to the gradient
  bool nesterov = false;
  bool maximize = false;    ///< ascend instead of descend
  bool first_step = false;  ///< the buffer is set to the gradient instead of updated
};
/// param, grad, momentum_buffer: [*] (same shape). d = grad + wd·param;
/// buf = first ? d : momentum·buf + (1 - dampening)·d;
/// param -= lr·(nesterov ? d + momentum·buf : buf).
using SgdStepKernel = void(const Tensor& param, const Tensor& grad, const Tensor& momentum_buffer,
                           const SgdStepParams& p);

/// Hyper-parameters of one Adam / AdamW update.
struct AdamStepParams {
  double lr = 0.0;
  double beta1 = 0.9;
  double beta2 = 0.999;
  double eps = 1e-8;
  double weight_decay = 0.0;
  bool decoupled_weight_decay = false;  ///< AdamW: param *= 1 - lr·wd instead of an L2 term
  bool amsgrad = false;                 ///< max_exp_avg_sq is defined and used
  bool maximize = false;
  int64_t step = 1;  ///< this parameter's step count, including this update (bias correction)
};
/// param, grad, exp_avg, exp_avg_sq, max_exp_avg_sq: [*]. m = β1·m + (1-β1)·g;
/// v = β2·v + (1-β2)·g²; param -= lr/(1-β1^t) · m / (sqrt(v)/sqrt(1-β2^t) + eps).
using AdamStepKernel = void(const Tensor& param, const Tensor& grad, const Tensor& exp_avg,
                            const Tensor& exp_avg_sq, const Tensor& max_exp_avg_sq,
                            const AdamStepParams& p);

/// Hyper-parameters of one Adagrad update.
struct AdagradStepParams {
  double lr = 0.0;
  double lr_decay = 0.0;
  double weight_decay = 0.0;
  double eps = 1e-10;
  bool maximize = false;
  int64_t step = 1;  ///< this parameter's step count, including this update
};
/// param, grad, sum: [*]. sum += g²; param -= lr/(1 + (t-1)·lr_decay) · g / (sqrt(sum) + eps).
using AdagradStepKernel = void(const Tensor& param, const Tensor& grad, const Tensor& sum,
                               const AdagradStepParams& p);

/// Hyper-parameters of one RMSprop update.
struct RmspropStepParams {
  double lr = 0.0;
  double alpha = 0.99;
  double eps = 1e-8;
  double weight_decay = 0.0;
  double momentum = 0.0;  ///< > 0: momentum_buffer is defined and used
  bool centered = false;  ///< grad_avg is defined and used
  bool maximize = false;
};
/// param, grad, square_avg, momentum_buffer, grad_avg: [*]. sq = α·sq + (1-α)·g²;
/// avg = sqrt(sq - ga²) (centered, ga = α·ga + (1-α)·g) or sqrt(sq), plus eps;
/// param -= lr·buf with buf = momentum·buf + g/avg, or param -= lr·g/avg.
using RmspropStepKernel = void(const Tensor& param, const Tensor& grad, const Tensor& square_avg,
                               const Tensor& momentum_buffer, const Tensor& grad_avg,
                               const RmspropStepParams& p);

/// Σ x² over a dense tensor x: [*], accumulated in double (deterministic for a given thread
/// count). Used by gradient clipping.
using SumSquaresKernel = double(const Tensor& x);

}  // namespace exadnn
