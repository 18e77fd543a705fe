// Loss functions. Each reduces to a scalar by default (mean over the batch).
#pragma once

#include "exadnn/core/tensor.h"
#include "exadnn/ops/cross_entropy.h"

namespace exadnn::nn {

/// How a per-element loss is reduced.
enum class Reduction { mean, sum, none };

/// Softmax cross-entropy of logits [N, C] against class indices [N] (i64), optionally with label
/// smoothing ε: target distribution (1-ε)·onehot + ε/C.
Tensor cross_entropy(const Tensor& logits, const Tensor& target, double label_smoothing = 0.0,
                     Reduction reduction = Reduction::mean);
/// Negative log-likelihood of log-probabilities [N, C] against class indices [N].
Tensor nll_loss(const Tensor& log_probs, const Tensor& target,
                Reduction reduction = Reduction::mean);
/// (x - y)^2.
Tensor mse_loss(const Tensor& input, const Tensor& target, Reduction reduction = Reduction::mean);
/// |x - y|.
Tensor l1_loss(const Tensor& input, const Tensor& target, Reduction reduction = Reduction::mean);
/// 0.5·d^2 where |d| < delta, else delta·(|d| - 0.5·delta), d = x - y.
Tensor huber_loss(const Tensor& input, const Tensor& target, double delta = 1.0,
                  Reduction reduction = Reduction::mean);
/// Binary cross-entropy on logits, computed stably: max(x,0) - x·y + log(1 + exp(-|x|)).
Tensor bce_with_logits(const Tensor& logits, const Tensor& target,
                       Reduction reduction = Reduction::mean);
/// One-hot encoding of class indices (the op, exadnn/ops/cross_entropy.h).
using exadnn::one_hot;

}  // namespace exadnn::nn
