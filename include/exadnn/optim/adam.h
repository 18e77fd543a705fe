// Adam: adaptive moment estimation with optional L2 weight decay and the AMSGrad variant
// (the semantics of torch.optim.Adam).
#pragma once

#include <vector>

#include "exadnn/optim/optimizer.h"

namespace exadnn::optim {

/// Options of Adam. Chained setters: AdamOptions(1e-3).betas(0.9, 0.999).eps(1e-8).
class AdamOptions {
 public:
  explicit AdamOptions(double lr = 1e-3) : lr_(lr) {}
  /// Learning rate (>= 0).
  AdamOptions& lr(double v) { lr_ = v; return *this; }
  /// Decay rates of the first and second moment averages, each in [0, 1).
  AdamOptions& betas(double beta1, double beta2) { beta1_ = beta1; beta2_ = beta2; return *this; }
  /// Term added to the denominator (>= 0).
  AdamOptions& eps(double v) { eps_ = v; return *this; }
  /// L2 penalty (>= 0) added to the gradient: grad + weight_decay·param.
  AdamOptions& weight_decay(double v) { weight_decay_ = v; return *this; }
  /// AMSGrad: normalise by the running maximum of the second moment.
  AdamOptions& amsgrad(bool v) { amsgrad_ = v; return *this; }
  /// Ascend the objective instead of descending it.
  AdamOptions& maximize(bool v) { maximize_ = v; return *this; }

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
  double weight_decay_ = 0.0;
  bool amsgrad_ = false;
  bool maximize_ = false;
};

/// Adam. State per parameter: "exp_avg", "exp_avg_sq", and "max_exp_avg_sq" with AMSGrad; the
/// bias corrections use the parameter's own step count.
class Adam : public Optimizer {
 public:
  /// params: leaf tensors that require grad; options are checked (an Error names the bad one).
  Adam(std::vector<Tensor> params, const AdamOptions& options = AdamOptions());
  /// The options it was made with.
  const AdamOptions& options() const { return options_; }

 protected:
  void update(size_t index, const Tensor& param, const Tensor& grad) override;

 private:
  AdamOptions options_;
};

}  // namespace exadnn::optim
