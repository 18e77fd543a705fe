// Classification against class indices: one-hot encoding, and the softmax cross-entropy of class
// scores as one fused, differentiable op.
#pragma once

#include <cstdint>

#include "exadnn/core/tensor.h"

namespace exadnn {

/// One-hot encoding of class indices [N] (any integer dtype) -> [N, classes] of `dtype`; an
/// index outside [0, classes) is an error naming it.
Tensor one_hot(const Tensor& target, int64_t classes, DType dtype = DType::f32);

/// Per-example cross-entropy of class scores: loss [N] = log Σ_c exp(logits [n, c]) -
/// logits [n, target [n]], i.e. -log_softmax(logits) at the target, for logits [N, C] (floating;
/// f16 and bf16 are computed in f32) and class indices target [N] (integers in [0, C); one outside
/// is an error naming it and its example). Differentiable w.r.t. the logits:
/// grad = g (softmax(logits) - one_hot(target)). One fused kernel and one graph node where the
/// backend has the kernel (CPU), else logits - logsumexp, a one-hot pick and a sum.
Tensor softmax_cross_entropy(const Tensor& logits, const Tensor& target);

}  // namespace exadnn
