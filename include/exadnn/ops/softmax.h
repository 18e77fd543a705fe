// Softmax and log-softmax along one axis, computed stably (max subtracted) in one fused kernel.
#pragma once

#include <cstdint>

#include "exadnn/core/tensor.h"

namespace exadnn {

/// exp(x - max) / sum(exp(x - max)) along `axis` (negative counts from the end). Differentiable.
Tensor softmax(const Tensor& x, int64_t axis = -1);
/// x - max - log(sum(exp(x - max))) along `axis`. Differentiable.
Tensor log_softmax(const Tensor& x, int64_t axis = -1);

}  // namespace exadnn
