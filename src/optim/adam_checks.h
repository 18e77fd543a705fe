// Option checks and step parameters shared by Adam and AdamW (internal to src/optim).
#pragma once

#include <string>

#include "exadnn/backend/optim_kernels.h"
#include "exadnn/core/error.h"

namespace exadnn::optim::detail {

/// Throws an Error at `where` naming the first invalid option (PyTorch's rules).
inline void check_adam_options(const std::string& where, double beta1, double beta2, double eps,
                               double weight_decay) {
  EXADNN_CHECK(eps >= 0.0, where, "invalid eps ", eps, " (must be >= 0)");
  EXADNN_CHECK(beta1 >= 0.0 && beta1 < 1.0, where, "invalid beta1 ", beta1, " (must be in [0, 1))");
  EXADNN_CHECK(beta2 >= 0.0 && beta2 < 1.0, where, "invalid beta2 ", beta2, " (must be in [0, 1))");
  EXADNN_CHECK(weight_decay >= 0.0, where, "invalid weight_decay ", weight_decay,
               " (must be >= 0)");
}

/// The fused kernel's hyper-parameters from Adam's or AdamW's options; `decoupled` is AdamW's
/// weight decay (param *= 1 - lr·wd) instead of Adam's L2 term.
template <class Options>
AdamStepParams adam_step_params(const Options& o, double lr, bool decoupled, int64_t step) {
  AdamStepParams p;
  p.lr = lr;
  p.beta1 = o.beta1();
  p.beta2 = o.beta2();
  p.eps = o.eps();
  p.weight_decay = o.weight_decay();
  p.decoupled_weight_decay = decoupled;
  p.amsgrad = o.amsgrad();
  p.maximize = o.maximize();
  p.step = step;
  return p;
}

}  // namespace exadnn::optim::detail
