// SGD: stochastic gradient descent with optional momentum, Nesterov momentum and weight decay
// (the semantics of torch.optim.SGD).
#pragma once

#include <vector>

#include "exadnn/optim/optimizer.h"

namespace exadnn::optim {

/// Options of SGD; `lr` is required. Chained setters: SGDOptions(0.05).momentum(0.9).
class SGDOptions {
 public:
  explicit SGDOptions(double lr) : lr_(lr) {}
  /// Learning rate (>= 0).
  SGDOptions& lr(double v) {
    lr_ = v;
    return *this;
  }
  /// Momentum factor (>= 0); 0 keeps no buffer.
  SGDOptions& momentum(double v) {
    momentum_ = v;
    return *this;
  }
  /// Dampening of the momentum: buf = momentum·buf + (1 - dampening)·grad.
  SGDOptions& dampening(double v) {
    dampening_ = v;
    return *this;
  }
  /// L2 penalty (>= 0) added to the gradient: grad + weight_decay·param.
  SGDOptions& weight_decay(double v) {
    weight_decay_ = v;
    return *this;
  }
  /// Nesterov momentum (needs momentum > 0 and dampening 0).
  SGDOptions& nesterov(bool v) {
    nesterov_ = v;
    return *this;
  }
  /// Ascend the objective instead of descending it.
  SGDOptions& maximize(bool v) {
    maximize_ = v;
    return *this;
  }

  double lr() const { return lr_; }
  double momentum() const { return momentum_; }
  double dampening() const { return dampening_; }
  double weight_decay() const { return weight_decay_; }
  bool nesterov() const { return nesterov_; }
  bool maximize() const { return maximize_; }

 private:
  double lr_;
  double momentum_ = 0.0;
  double dampening_ = 0.0;
  double weight_decay_ = 0.0;
  bool nesterov_ = false;
  bool maximize_ = false;
};

/// SGD. State per parameter: "momentum_buffer" (when momentum > 0), set to the first gradient the
/// parameter receives and updated from then on.
class SGD : public Optimizer {
 public:
  /// params: leaf tensors that require grad; options are checked (an Error names the bad one).
  SGD(std::vector<Tensor> params, const SGDOptions& options);
  /// The options it was made with.
  const SGDOptions& options() const { return options_; }

 protected:
  void update(size_t index, const Tensor& param, const Tensor& grad) override;

 private:
  SGDOptions options_;
};

}  // namespace exadnn::optim
