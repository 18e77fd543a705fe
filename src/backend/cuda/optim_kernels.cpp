// The cuda row of the dispatch table for the fused optimizer updates (f32, f64): the derived
// scalars are computed in double exactly as the CPU kernels compute them, then optim.cu runs one
// pass over the tensors.
#include <cmath>

#include "cuda_check.h"
#include "exadnn/backend/dispatch.h"
#include "exadnn/backend/optim_kernels.h"
#include "register.h"
#include "tensor_args.h"

namespace exadnn::cuda {

namespace {

// The address of an optional buffer (nullptr when undefined).
void* data_or_null(const Tensor& t) {
  return t.defined() ? t.data_ptr() : nullptr;
}

void sgd_step(const Tensor& param, const Tensor& grad, const Tensor& momentum_buffer,
              const SgdStepParams& sp) {
  DeviceGuard guard(cuda_device_of(param, "sgd_step"));
  const bool has_momentum = sp.momentum != 0.0;
  const SgdArgs a{sp.maximize ? -1.0 : 1.0,
                  sp.weight_decay,
                  sp.momentum,
                  1.0 - sp.dampening,
                  -sp.lr,
                  sp.weight_decay != 0.0,
                  has_momentum,
                  has_momentum && sp.first_step,
                  has_momentum && sp.nesterov};
  launch_sgd_step(elem_type(param.dtype()), param.data_ptr(), grad.data_ptr(),
                  has_momentum ? momentum_buffer.data_ptr() : nullptr, param.numel(), a);
}

void adam_step(const Tensor& param, const Tensor& grad, const Tensor& exp_avg,
               const Tensor& exp_avg_sq, const Tensor& max_exp_avg_sq, const AdamStepParams& ap) {
  DeviceGuard guard(cuda_device_of(param, "adam_step"));
  const double t = static_cast<double>(ap.step);
  const double bias_correction1 = 1.0 - std::pow(ap.beta1, t);
  const double bias_correction2 = 1.0 - std::pow(ap.beta2, t);
  const bool decay = ap.weight_decay != 0.0;
  const AdamArgs a{ap.maximize ? -1.0 : 1.0,
                   ap.weight_decay,
                   1.0 - ap.lr * ap.weight_decay,
                   ap.beta1,
                   1.0 - ap.beta1,
                   ap.beta2,
                   1.0 - ap.beta2,
                   std::sqrt(bias_correction2),
                   ap.eps,
                   -(ap.lr / bias_correction1),
                   decay && !ap.decoupled_weight_decay,
                   decay && ap.decoupled_weight_decay,
                   ap.amsgrad};
  launch_adam_step(elem_type(param.dtype()), param.data_ptr(), grad.data_ptr(), exp_avg.data_ptr(),
                   exp_avg_sq.data_ptr(), ap.amsgrad ? max_exp_avg_sq.data_ptr() : nullptr,
                   param.numel(), a);
}

void adagrad_step(const Tensor& param, const Tensor& grad, const Tensor& sum,
                  const AdagradStepParams& ap) {
  DeviceGuard guard(cuda_device_of(param, "adagrad_step"));
  const double clr = ap.lr / (1.0 + (static_cast<double>(ap.step) - 1.0) * ap.lr_decay);
  const AdagradArgs a{ap.maximize ? -1.0 : 1.0, ap.weight_decay, -clr, ap.eps,
                      ap.weight_decay != 0.0};
  launch_adagrad_step(elem_type(param.dtype()), param.data_ptr(), grad.data_ptr(), sum.data_ptr(),
                      param.numel(), a);
}

void rmsprop_step(const Tensor& param, const Tensor& grad, const Tensor& square_avg,
                  const Tensor& momentum_buffer, const Tensor& grad_avg,
                  const RmspropStepParams& rp) {
  DeviceGuard guard(cuda_device_of(param, "rmsprop_step"));
  const bool has_momentum = rp.momentum > 0.0;
  const RmspropArgs a{rp.maximize ? -1.0 : 1.0,
                      rp.weight_decay,
                      rp.alpha,
                      1.0 - rp.alpha,
                      rp.eps,
                      rp.momentum,
                      -rp.lr,
                      rp.weight_decay != 0.0,
                      has_momentum,
                      rp.centered};
  launch_rmsprop_step(elem_type(param.dtype()), param.data_ptr(), grad.data_ptr(),
                      square_avg.data_ptr(), has_momentum ? data_or_null(momentum_buffer) : nullptr,
                      rp.centered ? data_or_null(grad_avg) : nullptr, param.numel(), a);
}

template <class Signature>
void put(KernelRegistry& r, OpId op, DType dtype, Signature* kernel) {
  r.add(op, DeviceKind::cuda, dtype, reinterpret_cast<AnyKernel>(kernel));
}

}  // namespace

void register_optim_kernels(KernelRegistry& r) {
  for (DType d : {DType::f32, DType::f64}) {
    put<SgdStepKernel>(r, OpId::sgd_step, d, &sgd_step);
    put<AdamStepKernel>(r, OpId::adam_step, d, &adam_step);
    put<AdagradStepKernel>(r, OpId::adagrad_step, d, &adagrad_step);
    put<RmspropStepKernel>(r, OpId::rmsprop_step, d, &rmsprop_step);
  }
}

}  // namespace exadnn::cuda
