// Gradient clipping by global norm: one fused sum-of-squares pass per gradient, then one scaling
// pass when the norm is too large.
#include "exadnn/optim/clip_grad.h"

#include <cmath>

#include "exadnn/autograd/grad_mode.h"
#include "exadnn/backend/dispatch.h"
#include "exadnn/backend/optim_kernels.h"
#include "exadnn/ops/inplace.h"

namespace exadnn::optim {

double clip_grad_norm(const std::vector<Tensor>& params, double max_norm) {
  EXADNN_CHECK(max_norm >= 0.0, "optim::clip_grad_norm", "invalid max_norm ", max_norm,
               " (must be >= 0)");
  NoGradGuard no_grad;
  double sum_sq = 0.0;
  for (const Tensor& p : params) {
    EXADNN_CHECK(p.defined(), "optim::clip_grad_norm", "undefined parameter");
    const Tensor g = p.grad();
    if (!g.defined()) continue;
    const Tensor dense = g.is_contiguous() ? g : g.contiguous();
    sum_sq +=
        lookup<SumSquaresKernel>(OpId::sum_squares, dense.device().kind, dense.dtype())(dense);
  }
  const double total = std::sqrt(sum_sq);
  const double coef = max_norm / (total + 1e-6);
  if (coef < 1.0 || std::isnan(coef)) {
    for (const Tensor& p : params) {
      const Tensor g = p.grad();
      if (g.defined()) mul_(g, coef);
    }
  }
  return total;
}

}  // namespace exadnn::optim
