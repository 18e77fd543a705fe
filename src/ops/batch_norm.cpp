// batch_norm and batch_norm_relu over the dispatched batch-norm kernels, the running-statistics
// update, and the gradient.
#include "exadnn/ops/normalization.h"

#include "autocast.h"
#include "exadnn/autograd/grad_mode.h"
#include "exadnn/backend/dispatch.h"
#include "exadnn/backend/nn_kernels.h"
#include "exadnn/ops/elementwise.h"
#include "exadnn/ops/inplace.h"
#include "internal.h"

namespace exadnn {

namespace {

using Grads = std::vector<Tensor>;

// Checks a per-channel tensor (weight, bias, running statistics) when defined.
void check_channel_tensor(const Tensor& t, const Tensor& x, int64_t c, const char* what,
                          const char* op) {
  if (!t.defined()) return;
  ops::check_same_device(x, t, op);
  EXADNN_CHECK(t.shape() == Shape{c}, op, what, " must have shape [", c,
               "] (the channels of input ", x.shape(), "), got ", t.shape());
}

// A dense copy of t in `dtype` that later in-place updates of t do not change.
Tensor snapshot(const Tensor& t, DType dtype) {
  Tensor s = ops::empty_on(t.shape(), dtype, t.device());
  copy_(s, t.detach());
  return s;
}

// Batch norm, followed by a ReLU when `relu` (the batch_norm_relu kernels), as one node.
Tensor batch_norm_node(const Tensor& x_in, const Tensor& running_mean, const Tensor& running_var,
                       const Tensor& weight, const Tensor& bias, bool training, double momentum,
                       double eps, bool relu) {
  const char* op = relu ? "batch_norm_relu" : "batch_norm";
  const Tensor x = autocast_to_f32(x_in);  // autocast keeps normalisation in f32
  ops::check_defined(x, op, "input");
  EXADNN_CHECK(x.dim() >= 2, op, "input must be [N, C, ...] with at least 2 dims, got shape ",
               x.shape());
  EXADNN_CHECK(eps >= 0.0, op, "eps must not be negative, got ", eps);
  const int64_t c = x.shape()[1];
  check_channel_tensor(weight, x, c, "weight", op);
  check_channel_tensor(bias, x, c, "bias", op);
  check_channel_tensor(running_mean, x, c, "running_mean", op);
  check_channel_tensor(running_var, x, c, "running_var", op);
  for (const Tensor* t : {&weight, &bias})
    EXADNN_CHECK(!t->defined() || t->dtype() == x.dtype(), op,
                 "weight and bias must have the "
                 "input's dtype ",
                 dtype_name(x.dtype()), ", got ", dtype_name(t->dtype()));
  EXADNN_CHECK(training || (running_mean.defined() && running_var.defined()), op,
               "evaluation mode needs running_mean and running_var");
  EXADNN_CHECK(running_mean.defined() == running_var.defined(), op,
               "running_mean and running_var must be given together");

  BatchNormGeometry g;
  g.n = x.shape()[0];
  g.c = c;
  g.spatial = x.numel() / std::max<int64_t>(g.n * c, 1);
  if (g.n * c == 0) g.spatial = 0;
  g.eps = eps;
  g.training = training;
  const int64_t count = g.n * g.spatial;
  EXADNN_CHECK(!training || count > 1, op,
               "training needs more than one value per channel, got "
               "input shape ",
               x.shape());

  const Device device = x.device();
  const DType dtype = x.dtype();
  const Tensor xd = x.detach().contiguous();
  const Tensor wd = weight.defined() ? weight.detach().contiguous() : Tensor();
  const Tensor bd = bias.defined() ? bias.detach().contiguous() : Tensor();
  Tensor mean, var;
  if (training) {
    mean = ops::empty_on({c}, dtype, device);
    var = ops::empty_on({c}, dtype, device);
  } else {
    mean = snapshot(running_mean, dtype);
    var = snapshot(running_var, dtype);
  }
  Tensor y = ops::empty_on(x.shape(), dtype, device);
  const OpId forward = relu ? OpId::batch_norm_relu_forward : OpId::batch_norm_forward;
  lookup<BatchNormForwardKernel>(forward, device.kind, dtype)(g, y, xd, wd, bd, mean, var);
  if (training && running_mean.defined()) {
    NoGradGuard no_grad;
    mul_(running_mean, 1.0 - momentum);
    add_(running_mean, mean, momentum);
    mul_(running_var, 1.0 - momentum);  // with the unbiased batch variance
    add_(running_var, var, momentum * static_cast<double>(count) / static_cast<double>(count - 1));
  }

  const bool need_x = x.requires_grad(), need_w = weight.defined() && weight.requires_grad();
  const bool need_b = bias.defined() && bias.requires_grad();
  const Tensor mask = relu ? y.detach() : Tensor();  // the ReLU's output, without its node
  ops::record(
      op, {x, weight, bias}, y,
      [g, device, dtype, need_x, need_w, need_b, xd, wd, mean, var, mask](const Grads& grads) {
        Grads result(3);
        const Tensor gx = ops::empty_on(xd.shape(), dtype, device);
        if (need_w) result[1] = ops::empty_on({g.c}, dtype, device);
        if (need_b) result[2] = ops::empty_on({g.c}, dtype, device);
        const Tensor gy = grads[0].contiguous();
        if (mask.defined())
          lookup<BatchNormReluBackwardKernel>(OpId::batch_norm_relu_backward, device.kind, dtype)(
              g, gx, result[1], result[2], gy, xd, mask, wd, mean, var);
        else
          lookup<BatchNormBackwardKernel>(OpId::batch_norm_backward, device.kind, dtype)(
              g, gx, result[1], result[2], gy, xd, wd, mean, var);
        if (need_x) result[0] = gx;
        return result;
      });
  return y;
}

}  // namespace

Tensor batch_norm(const Tensor& x, const Tensor& running_mean, const Tensor& running_var,
                  const Tensor& weight, const Tensor& bias, bool training, double momentum,
                  double eps) {
  return batch_norm_node(x, running_mean, running_var, weight, bias, training, momentum, eps,
                         false);
}

Tensor batch_norm_relu(const Tensor& x_in, const Tensor& running_mean, const Tensor& running_var,
                       const Tensor& weight, const Tensor& bias, bool training, double momentum,
                       double eps) {
  ops::check_defined(x_in, "batch_norm_relu", "input");
  const Tensor x = autocast_to_f32(x_in);
  const KernelRegistry& kernels = KernelRegistry::instance();
  const DeviceKind kind = x.device().kind;
  if (kernels.find(OpId::batch_norm_relu_forward, kind, x.dtype()) == nullptr ||
      kernels.find(OpId::batch_norm_relu_backward, kind, x.dtype()) == nullptr)
    return relu(batch_norm(x, running_mean, running_var, weight, bias, training, momentum, eps));
  return batch_norm_node(x, running_mean, running_var, weight, bias, training, momentum, eps, true);
}

}  // namespace exadnn
