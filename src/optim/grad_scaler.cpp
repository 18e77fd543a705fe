// GradScaler: loss scaling, unscaling with an inf/NaN check, skipped steps, scale updates.
#include "exadnn/optim/grad_scaler.h"

#include <cmath>

#include "exadnn/autograd/grad_mode.h"
#include "exadnn/backend/dispatch.h"
#include "exadnn/backend/optim_kernels.h"
#include "exadnn/ops/factories.h"
#include "exadnn/ops/inplace.h"
#include "exadnn/ops/operators.h"

namespace exadnn::optim {

namespace {
constexpr const char* kWhere = "optim::GradScaler";
}

GradScaler::GradScaler(const GradScalerOptions& options)
    : options_(options), scale_(options.init_scale()) {
  EXADNN_CHECK(std::isfinite(options.init_scale()) && options.init_scale() > 0.0, kWhere,
               "init_scale must be positive, got ", options.init_scale());
  EXADNN_CHECK(options.growth_factor() > 1.0, kWhere, "growth_factor must be > 1, got ",
               options.growth_factor());
  EXADNN_CHECK(options.backoff_factor() > 0.0 && options.backoff_factor() < 1.0, kWhere,
               "backoff_factor must be in (0, 1), got ", options.backoff_factor());
  EXADNN_CHECK(options.growth_interval() >= 1, kWhere, "growth_interval must be >= 1, got ",
               options.growth_interval());
}

Tensor GradScaler::scale(const Tensor& loss) const {
  EXADNN_CHECK(loss.defined(), kWhere, "scale() got an undefined loss");
  return options_.enabled() ? loss * scale_ : loss;
}

void GradScaler::unscale(Optimizer& opt) {
  if (!options_.enabled()) return;
  EXADNN_CHECK(!unscaled_, kWhere, "unscale() was already called since the last update()");
  NoGradGuard no_grad;
  unscaled_ = true;
  const double inv = 1.0 / scale_;
  for (const Tensor& p : opt.params()) {
    Tensor g = p.grad();
    if (!g.defined()) continue;
    if (g.dtype() == DType::f16 || g.dtype() == DType::bf16) {
      g = g.to(DType::f32) * inv;  // f32, so gradients below 16-bit range survive the division
      Tensor(p).set_grad(g);
    } else {
      mul_(g, inv);
    }
    // f64 sum of squares of f32/f64 values: finite exactly when every element is.
    const Tensor dense = g.is_contiguous() ? g : g.contiguous();
    const double ss =
        lookup<SumSquaresKernel>(OpId::sum_squares, dense.device().kind, dense.dtype())(dense);
    if (!std::isfinite(ss)) found_inf_ = true;
  }
  if (options_.overflow_agreement()) found_inf_ = options_.overflow_agreement()(found_inf_);
}

bool GradScaler::step(Optimizer& opt) {
  if (!options_.enabled()) {
    opt.step();
    return true;
  }
  if (!unscaled_) unscale(opt);
  if (found_inf_) return false;
  opt.step();
  return true;
}

void GradScaler::update() {
  if (!options_.enabled()) return;
  if (found_inf_) {
    scale_ *= options_.backoff_factor();
    growth_tracker_ = 0;
  } else if (++growth_tracker_ == options_.growth_interval()) {
    scale_ *= options_.growth_factor();
    growth_tracker_ = 0;
  }
  unscaled_ = false;
  found_inf_ = false;
}

StateDict GradScaler::state_dict() const {
  StateDict out;
  out.insert("scale", scalar_tensor(scale_, DType::f64));
  out.insert("growth_tracker", scalar_tensor(static_cast<double>(growth_tracker_), DType::i64));
  return out;
}

void GradScaler::load_state_dict(const StateDict& state) {
  for (const char* name : {"scale", "growth_tracker"})
    EXADNN_CHECK(state.contains(name) && state.at(name).dim() == 0, kWhere,
                 "cannot load state: entry '", name, "' is missing or not 0-d");
  const double s = state.at("scale").item_double();
  const double t = state.at("growth_tracker").item_double();
  EXADNN_CHECK(std::isfinite(s) && s > 0.0, kWhere, "cannot load state: scale ", s,
               " is not positive");
  EXADNN_CHECK(t >= 0.0 && t == std::floor(t), kWhere, "cannot load state: growth_tracker ", t);
  scale_ = s;
  growth_tracker_ = static_cast<int64_t>(t);
  unscaled_ = false;
  found_inf_ = false;
}

}  // namespace exadnn::optim
