// Gradient clipping by global norm (torch.nn.utils.clip_grad_norm_).
#pragma once

#include <vector>

#include "exadnn/core/tensor.h"

namespace exadnn::optim {

/// Scales the gradients of `params` in place so that their global 2-norm (the norm of all their
/// elements together) is at most `max_norm` (>= 0): each is multiplied by
/// max_norm / (total + 1e-6) when that is below 1. Parameters without a gradient are ignored.
/// Returns the total norm before clipping (inf or NaN if a gradient holds them).
double clip_grad_norm(const std::vector<Tensor>& params, double max_norm);

}  // namespace exadnn::optim
