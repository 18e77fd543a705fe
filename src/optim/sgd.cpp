// SGD: option checks and the call of the fused sgd_step kernel.
#include "exadnn/optim/sgd.h"

#include <utility>

#include "exadnn/backend/dispatch.h"
#include "exadnn/backend/optim_kernels.h"

namespace exadnn::optim {

SGD::SGD(std::vector<Tensor> params, const SGDOptions& options)
    : Optimizer(std::move(params), options.lr(), "SGD"), options_(options) {
  EXADNN_CHECK(options.momentum() >= 0.0, where(), "invalid momentum ", options.momentum(),
               " (must be >= 0)");
  EXADNN_CHECK(options.weight_decay() >= 0.0, where(), "invalid weight_decay ",
               options.weight_decay(), " (must be >= 0)");
  EXADNN_CHECK(!options.nesterov() || (options.momentum() > 0.0 && options.dampening() == 0.0),
               where(),
               "Nesterov momentum requires a momentum > 0 and zero dampening (got momentum ",
               options.momentum(), ", dampening ", options.dampening(), ")");
  if (options.momentum() != 0.0) add_buffer("momentum_buffer");
}

void SGD::update(size_t index, const Tensor& param, const Tensor& grad) {
  SgdStepParams p;
  p.lr = lr();
  p.momentum = options_.momentum();
  p.dampening = options_.dampening();
  p.weight_decay = options_.weight_decay();
  p.nesterov = options_.nesterov();
  p.maximize = options_.maximize();
  p.first_step = param_step_count(index) == 1;
  const Tensor buf = p.momentum != 0.0 ? buffer(0, index) : Tensor();
  lookup<SgdStepKernel>(OpId::sgd_step, param.device().kind, param.dtype())(param, grad, buf, p);
}

}  // namespace exadnn::optim
