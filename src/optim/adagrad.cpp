// Adagrad: option checks and the call of the fused adagrad_step kernel.
#include "exadnn/optim/adagrad.h"

#include <utility>

#include "exadnn/backend/dispatch.h"
#include "exadnn/backend/optim_kernels.h"

namespace exadnn::optim {

Adagrad::Adagrad(std::vector<Tensor> params, const AdagradOptions& options)
    : Optimizer(std::move(params), options.lr(), "Adagrad"), options_(options) {
  EXADNN_CHECK(options.lr_decay() >= 0.0, where(), "invalid lr_decay ", options.lr_decay(),
               " (must be >= 0)");
  EXADNN_CHECK(options.weight_decay() >= 0.0, where(), "invalid weight_decay ",
               options.weight_decay(), " (must be >= 0)");
  EXADNN_CHECK(options.initial_accumulator_value() >= 0.0, where(),
               "invalid initial_accumulator_value ", options.initial_accumulator_value(),
               " (must be >= 0)");
  EXADNN_CHECK(options.eps() >= 0.0, where(), "invalid eps ", options.eps(), " (must be >= 0)");
  add_buffer("sum", options.initial_accumulator_value());
}

void Adagrad::update(size_t index, const Tensor& param, const Tensor& grad) {
  AdagradStepParams p;
  p.lr = lr();
  p.lr_decay = options_.lr_decay();
  p.weight_decay = options_.weight_decay();
  p.eps = options_.eps();
  p.maximize = options_.maximize();
  p.step = param_step_count(index);
  lookup<AdagradStepKernel>(OpId::adagrad_step, param.device().kind, param.dtype())(
      param, grad, buffer(0, index), p);
}

}  // namespace exadnn::optim
