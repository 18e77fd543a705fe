// RMSprop: option checks and the call of the fused rmsprop_step kernel.
#include "exadnn/optim/rmsprop.h"

#include <utility>

#include "exadnn/backend/dispatch.h"
#include "exadnn/backend/optim_kernels.h"

namespace exadnn::optim {

RMSprop::RMSprop(std::vector<Tensor> params, const RMSpropOptions& options)
    : Optimizer(std::move(params), options.lr(), "RMSprop"), options_(options) {
  EXADNN_CHECK(options.eps() >= 0.0, where(), "invalid eps ", options.eps(), " (must be >= 0)");
  EXADNN_CHECK(options.momentum() >= 0.0, where(), "invalid momentum ", options.momentum(),
               " (must be >= 0)");
  EXADNN_CHECK(options.weight_decay() >= 0.0, where(), "invalid weight_decay ",
               options.weight_decay(), " (must be >= 0)");
  EXADNN_CHECK(options.alpha() >= 0.0, where(), "invalid alpha ", options.alpha(),
               " (must be >= 0)");
  add_buffer("square_avg");
  if (options.momentum() > 0.0) add_buffer("momentum_buffer");
  if (options.centered()) add_buffer("grad_avg");
}

void RMSprop::update(size_t index, const Tensor& param, const Tensor& grad) {
  RmspropStepParams p;
  p.lr = lr();
  p.alpha = options_.alpha();
  p.eps = options_.eps();
  p.weight_decay = options_.weight_decay();
  p.momentum = options_.momentum();
  p.centered = options_.centered();
  p.maximize = options_.maximize();
  size_t slot = 1;
  const Tensor buf = p.momentum > 0.0 ? buffer(slot++, index) : Tensor();
  const Tensor grad_avg = p.centered ? buffer(slot, index) : Tensor();
  lookup<RmspropStepKernel>(OpId::rmsprop_step, param.device().kind, param.dtype())(
      param, grad, buffer(0, index), buf, grad_avg, p);
}

}  // namespace exadnn::optim
