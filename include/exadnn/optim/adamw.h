// AdamW: Adam with decoupled weight decay — the parameter shrinks by lr·weight_decay·param
// before the Adam update instead of an L2 term in the gradient (the semantics of
// torch.optim.AdamW).
#pragma once

#include <vector>

#include "exadnn/optim/optimizer.h"

namespace exadnn::optim {

/// Options of AdamW (weight decay 1e-2 by default). Chained setters as AdamOptions.
class AdamWOptions {
 public:
  explicit AdamWOptions(double lr = 1e-3) : lr_(lr) {}
  /// Learning rate (>= 0).
  AdamWOptions& lr(double v) { lr_ = v; return *this; }
  /// Decay rates of the first and second moment averages, each in [0, 1).
  AdamWOptions& betas(double beta1, double beta2) { beta1_ = beta1; beta2_ = beta2; return *this; }
  /// Term added to the denominator (>= 0).
  AdamWOptions& eps(double v) { eps_ = v; return *this; }
  /// Decoupled weight decay (>= 0): param *= 1 - lr·weight_decay each step.
  AdamWOptions& weight_decay(double v) { weight_decay_ = v; return *this; }
  /// AMSGrad: normalise by the running maximum of the second moment.
  AdamWOptions& amsgrad(bool v) { amsgrad_ = v; return *this; }
  /// Ascend the objective instead of descending it.
  AdamWOptions& maximize(bool v) { maximize_ = v; return *this; }

  double lr() const { return lr_; }
  double beta1() const { return beta1_; }
  double beta2() const { return beta2_; }
  double eps() const { return eps_; }
  double weight_decay() const { return weight_decay_; }
  bool amsgrad() const { return amsgrad_; }
  bool maximize() const { return maximize_; }

 private:
  double lr_;
  double beta1_ = 0.9;
  double beta2_ = 0.999;
  double eps_ = 1e-8;
  double weight_decay_ = 1e-2;
  bool amsgrad_ = false;
  bool maximize_ = false;
};

/// AdamW. State per parameter: "exp_avg", "exp_avg_sq", and "max_exp_avg_sq" with AMSGrad.
class AdamW : public Optimizer {
 public:
  /// params: leaf tensors that require grad; options are checked (an Error names the bad one).
  AdamW(std::vector<Tensor> params, const AdamWOptions& options = AdamWOptions());
  /// The options it was made with.
  const AdamWOptions& options() const { return options_; }

 protected:
  void update(size_t index, const Tensor& param, const Tensor& grad) override;

 private:
  AdamWOptions options_;
};

}  // namespace exadnn::optim
