// Adagrad: per-element learning rates scaled by the accumulated squared gradients (the semantics
// of torch.optim.Adagrad).
#pragma once

#include <vector>

#include "exadnn/optim/optimizer.h"

namespace exadnn::optim {

/// Options of Adagrad. Chained setters: AdagradOptions(1e-2).lr_decay(1e-3).
class AdagradOptions {
 public:
  explicit AdagradOptions(double lr = 1e-2) : lr_(lr) {}
  /// Learning rate (>= 0).
  AdagradOptions& lr(double v) {
    lr_ = v;
    return *this;
  }
  /// Learning-rate decay (>= 0): step t uses lr / (1 + (t - 1)·lr_decay).
  AdagradOptions& lr_decay(double v) {
    lr_decay_ = v;
    return *this;
  }
  /// L2 penalty (>= 0) added to the gradient: grad + weight_decay·param.
  AdagradOptions& weight_decay(double v) {
    weight_decay_ = v;
    return *this;
  }
  /// Starting value (>= 0) of the sum of squared gradients.
  AdagradOptions& initial_accumulator_value(double v) {
    initial_accumulator_value_ = v;
    return *this;
  }
  /// Term added to the denominator (>= 0).
  AdagradOptions& eps(double v) {
    eps_ = v;
    return *this;
  }
  /// Ascend the objective instead of descending it.
  AdagradOptions& maximize(bool v) {
    maximize_ = v;
    return *this;
  }

  double lr() const { return lr_; }
  double lr_decay() const { return lr_decay_; }
  double weight_decay() const { return weight_decay_; }
  double initial_accumulator_value() const { return initial_accumulator_value_; }
  double eps() const { return eps_; }
  bool maximize() const { return maximize_; }

 private:
  double lr_;
  double lr_decay_ = 0.0;
  double weight_decay_ = 0.0;
  double initial_accumulator_value_ = 0.0;
  double eps_ = 1e-10;
  bool maximize_ = false;
};

/// Adagrad. State per parameter: "sum" (the accumulated squared gradients).
class Adagrad : public Optimizer {
 public:
  /// params: leaf tensors that require grad; options are checked (an Error names the bad one).
  Adagrad(std::vector<Tensor> params, const AdagradOptions& options = AdagradOptions());
  /// The options it was made with.
  const AdagradOptions& options() const { return options_; }

 protected:
  void update(size_t index, const Tensor& param, const Tensor& grad) override;

 private:
  AdagradOptions options_;
};

}  // namespace exadnn::optim
