#include "exadnn/nn/loss.h"

#include "exadnn/ops/comparison.h"
#include "exadnn/ops/cross_entropy.h"
#include "exadnn/ops/elementwise.h"
#include "exadnn/ops/factories.h"
#include "exadnn/ops/operators.h"
#include "exadnn/ops/reduction.h"
#include "ops/autocast.h"

namespace exadnn::nn {

namespace {

Tensor reduce(const Tensor& per_element, Reduction r) {
  switch (r) {
    case Reduction::mean:
      return mean(per_element);
    case Reduction::sum:
      return sum(per_element);
    case Reduction::none:
      return per_element;
  }
  return per_element;
}

void check_classification(const Tensor& scores, const Tensor& target, const char* op) {
  EXADNN_CHECK(scores.dim() == 2, op, "expects scores of shape [N, C], got ", scores.shape());
  EXADNN_CHECK(target.dim() == 1 && target.size(0) == scores.size(0), op, "target of shape ",
               target.shape(), " does not match scores of shape ", scores.shape(), " (expected [",
               scores.size(0), "])");
  EXADNN_CHECK(!is_floating(target.dtype()), op, "target must hold class indices (integers), got ",
               dtype_name(target.dtype()));
}

void check_same_shape(const Tensor& a, const Tensor& b, const char* op) {
  EXADNN_CHECK(a.shape() == b.shape(), op, "input of shape ", a.shape(), " and target of shape ",
               b.shape(), " differ");
}

}  // namespace

Tensor nll_loss(const Tensor& log_probs_in, const Tensor& target, Reduction reduction) {
  const Tensor log_probs = autocast_to_f32(log_probs_in);  // autocast keeps losses in f32
  check_classification(log_probs, target, "nll_loss");
  const Tensor picked = sum(log_probs * one_hot(target, log_probs.size(1), log_probs.dtype()), {1});
  return reduce(neg(picked), reduction);
}

Tensor cross_entropy(const Tensor& logits_in, const Tensor& target, double label_smoothing,
                     Reduction reduction) {
  const Tensor logits = autocast_to_f32(logits_in);  // autocast keeps losses in f32
  check_classification(logits, target, "cross_entropy");
  EXADNN_CHECK(label_smoothing >= 0.0 && label_smoothing <= 1.0, "cross_entropy",
               "label_smoothing must be in [0, 1], got ", label_smoothing);
  const Tensor nll = softmax_cross_entropy(logits, target);  // [N], one fused node on CPU
  if (label_smoothing == 0.0) return reduce(nll, reduction);
  // The smoothing term: the mean over classes of -log_softmax = logsumexp - mean of the logits.
  const Tensor uniform = logsumexp(logits, {1}) - mean(logits, {1});
  return reduce(nll * (1.0 - label_smoothing) + uniform * label_smoothing, reduction);
}

Tensor mse_loss(const Tensor& input_in, const Tensor& target, Reduction reduction) {
  const Tensor input = autocast_to_f32(input_in);  // autocast keeps losses in f32
  check_same_shape(input, target, "mse_loss");
  const Tensor d = input - target;
  return reduce(d * d, reduction);
}

Tensor l1_loss(const Tensor& input_in, const Tensor& target, Reduction reduction) {
  const Tensor input = autocast_to_f32(input_in);  // autocast keeps losses in f32
  check_same_shape(input, target, "l1_loss");
  return reduce(abs(input - target), reduction);
}

Tensor huber_loss(const Tensor& input_in, const Tensor& target, double delta, Reduction reduction) {
  const Tensor input = autocast_to_f32(input_in);  // autocast keeps losses in f32
  check_same_shape(input, target, "huber_loss");
  EXADNN_CHECK(delta > 0.0, "huber_loss", "delta must be positive, got ", delta);
  const Tensor d = input - target;
  const Tensor a = abs(d);
  const Tensor quadratic = d * d * 0.5;
  const Tensor linear = (a - 0.5 * delta) * delta;
  return reduce(where(lt(a, scalar_like(delta, a)), quadratic, linear), reduction);
}

Tensor bce_with_logits(const Tensor& logits_in, const Tensor& target, Reduction reduction) {
  const Tensor logits = autocast_to_f32(logits_in);  // autocast keeps losses in f32
  check_same_shape(logits, target, "bce_with_logits");
  const Tensor y = target.to(logits.dtype());
  const Tensor loss = relu(logits) - logits * y + log(exp(neg(abs(logits))) + 1.0);
  return reduce(loss, reduction);
}

}  // namespace exadnn::nn
