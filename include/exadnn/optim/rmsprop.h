// RMSprop: gradients divided by a running root mean square, optionally centered and with momentum
// (the semantics of torch.optim.RMSprop).
#pragma once

#include <vector>

#include "exadnn/optim/optimizer.h"

namespace exadnn::optim {

/// Options of RMSprop. Chained setters: RMSpropOptions(1e-2).alpha(0.9).centered(true).
class RMSpropOptions {
 public:
  explicit RMSpropOptions(double lr = 1e-2) : lr_(lr) {}
  /// Learning rate (>= 0).
  RMSpropOptions& lr(double v) {
    lr_ = v;
    return *this;
  }
  /// Smoothing constant (>= 0) of the squared-gradient average.
  RMSpropOptions& alpha(double v) {
    alpha_ = v;
    return *this;
  }
  /// Term added to the denominator (>= 0).
  RMSpropOptions& eps(double v) {
    eps_ = v;
    return *this;
  }
  /// L2 penalty (>= 0) added to the gradient: grad + weight_decay·param.
  RMSpropOptions& weight_decay(double v) {
    weight_decay_ = v;
    return *this;
  }
  /// Momentum factor (>= 0); 0 keeps no buffer.
  RMSpropOptions& momentum(double v) {
    momentum_ = v;
    return *this;
  }
  /// Normalise by the estimated variance (subtract the squared mean gradient).
  RMSpropOptions& centered(bool v) {
    centered_ = v;
    return *this;
  }
  /// Ascend the objective instead of descending it.
  RMSpropOptions& maximize(bool v) {
    maximize_ = v;
    return *this;
  }

  double lr() const { return lr_; }
  double alpha() const { return alpha_; }
  double eps() const { return eps_; }
  double weight_decay() const { return weight_decay_; }
  double momentum() const { return momentum_; }
  bool centered() const { return centered_; }
  bool maximize() const { return maximize_; }

 private:
  double lr_;
  double alpha_ = 0.99;
  double eps_ = 1e-8;
  double weight_decay_ = 0.0;
  double momentum_ = 0.0;
  bool centered_ = false;
  bool maximize_ = false;
};

/// RMSprop. State per parameter: "square_avg", plus "momentum_buffer" (momentum > 0) and
/// "grad_avg" (centered).
class RMSprop : public Optimizer {
 public:
  /// params: leaf tensors that require grad; options are checked (an Error names the bad one).
  RMSprop(std::vector<Tensor> params, const RMSpropOptions& options = RMSpropOptions());
  /// The options it was made with.
  const RMSpropOptions& options() const { return options_; }

 protected:
  void update(size_t index, const Tensor& param, const Tensor& grad) override;

 private:
  RMSpropOptions options_;
};

}  // namespace exadnn::optim
