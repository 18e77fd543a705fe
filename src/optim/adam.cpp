// Adam: option checks and the call of the fused adam_step kernel (L2 weight decay).
#include "exadnn/optim/adam.h"

#include <utility>

#include "adam_checks.h"
#include "exadnn/backend/dispatch.h"
#include "exadnn/backend/optim_kernels.h"

namespace exadnn::optim {

Adam::Adam(std::vector<Tensor> params, const AdamOptions& options)
    : Optimizer(std::move(params), options.lr(), "Adam"), options_(options) {
  detail::check_adam_options(where(), options.beta1(), options.beta2(), options.eps(),
                             options.weight_decay());
  add_buffer("exp_avg");
  add_buffer("exp_avg_sq");
  if (options.amsgrad()) add_buffer("max_exp_avg_sq");
}

void Adam::update(size_t index, const Tensor& param, const Tensor& grad) {
  const AdamStepParams p =
      detail::adam_step_params(options_, lr(), /*decoupled=*/false, param_step_count(index));
  const Tensor vmax = p.amsgrad ? buffer(2, index) : Tensor();
  lookup<AdamStepKernel>(OpId::adam_step, param.device().kind, param.dtype())(
      param, grad, buffer(0, index), buffer(1, index), vmax, p);
}

}  // namespace exadnn::optim
