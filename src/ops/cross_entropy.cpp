// one_hot and softmax_cross_entropy: the fused kernel and one graph node where the backend has
// it, else the composition (logsumexp, a one-hot pick, a sum), with the same values and errors.
#include "exadnn/ops/cross_entropy.h"

#include "exadnn/backend/nn_kernels.h"
#include "exadnn/ops/comparison.h"
#include "exadnn/ops/elementwise.h"
#include "exadnn/ops/operators.h"
#include "exadnn/ops/reduction.h"
#include "internal.h"

namespace exadnn {

namespace {

constexpr const char* kOp = "cross_entropy";

using Grads = std::vector<Tensor>;

// loss [N] through the composed ops (a backend without the fused kernel).
Tensor composed(const Tensor& logits, const Tensor& target) {
  const Tensor log_probs = logits - logsumexp(logits, {1}, /*keepdim=*/true);
  return neg(sum(log_probs * one_hot(target, logits.size(1), logits.dtype()), {1}));
}

}  // namespace

Tensor one_hot(const Tensor& target, int64_t classes, DType dtype) {
  ops::check_defined(target, "one_hot", "target");
  const Tensor labels = target.to(DType::i64);
  if (labels.numel() > 0) {
    const int64_t lo = min(labels).item<int64_t>(), hi = max(labels).item<int64_t>();
    EXADNN_CHECK(lo >= 0 && hi < classes, "one_hot", "class index ", lo < 0 ? lo : hi,
                 " is outside [0, ", classes, ")");
  }
  return eq(labels.unsqueeze(-1),
            arange(classes, TensorOptions(DType::i64).device(target.device())))
      .to(dtype);
}

Tensor softmax_cross_entropy(const Tensor& logits_in, const Tensor& target_in) {
  ops::check_defined(logits_in, kOp, "logits");
  ops::check_defined(target_in, kOp, "target");
  EXADNN_CHECK(logits_in.dim() == 2, kOp, "expects logits of shape [N, C], got ",
               logits_in.shape());
  EXADNN_CHECK(target_in.dim() == 1 && target_in.size(0) == logits_in.size(0), kOp,
               "target of shape ", target_in.shape(), " does not match logits of shape ",
               logits_in.shape(), " (expected [", logits_in.size(0), "])");
  EXADNN_CHECK(is_floating(logits_in.dtype()), kOp, "logits must be floating, got ",
               dtype_name(logits_in.dtype()));
  EXADNN_CHECK(!is_floating(target_in.dtype()), kOp,
               "target must hold class indices (integers), got ", dtype_name(target_in.dtype()));
  const DType dt = logits_in.dtype() == DType::f64 ? DType::f64 : DType::f32;
  const Tensor logits = logits_in.to(dt);  // recorded: f16 / bf16 logits get their gradient
  const Device device = logits.device();
  const AnyKernel kernel =
      KernelRegistry::instance().find(OpId::cross_entropy_forward, device.kind, dt);
  if (kernel == nullptr) return composed(logits, target_in);
  const Tensor target = target_in.to(DType::i64).to(device).contiguous();
  const Tensor x = logits.detach().contiguous();
  const int64_t n = x.size(0);
  Tensor loss = ops::empty_on({n}, dt, device), lse = ops::empty_on({n}, dt, device);
  reinterpret_cast<CrossEntropyForwardKernel*>(kernel)(loss, lse, x, target);
  ops::record(kOp, {logits}, loss, [x, lse, target, dt, device](const Grads& grads) {
    Tensor gx = ops::empty_on(x.shape(), dt, device);
    lookup<CrossEntropyBackwardKernel>(OpId::cross_entropy_backward, device.kind, dt)(
        gx, grads[0].to(dt).contiguous(), x, lse, target);
    return Grads{gx};
  });
  return loss;
}

}  // namespace exadnn
