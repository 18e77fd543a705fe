// The options Adam and AdamW share (chained setters returning the concrete options type):
//   AdamOptions(1e-3).betas(0.9, 0.999).eps(1e-8);  AdamWOptions(1e-3).weight_decay(0.05)
#pragma once

namespace exadnn::optim {

/// Options of the Adam family; `Self` is the concrete options class (AdamOptions, AdamWOptions).
template <class Self>
class AdamFamilyOptions {
 public:
  /// Learning rate (>= 0).
  Self& lr(double v) { return set(lr_, v); }
  /// Decay rates of the first and second moment averages, each in [0, 1).
  Self& betas(double beta1, double beta2) {
    beta1_ = beta1;
    return set(beta2_, beta2);
  }
  /// Term added to the denominator (>= 0).
  Self& eps(double v) { return set(eps_, v); }
  /// Weight decay (>= 0). Adam: an L2 penalty added to the gradient (grad + weight_decay·param);
  /// AdamW: decoupled, param *= 1 - lr·weight_decay before the update.
  Self& weight_decay(double v) { return set(weight_decay_, v); }
  /// AMSGrad: normalise by the running maximum of the second moment.
  Self& amsgrad(bool v) { return set(amsgrad_, v); }
  /// Ascend the objective instead of descending it.
  Self& maximize(bool v) { return set(maximize_, v); }

  double lr() const { return lr_; }
  double beta1() const { return beta1_; }
  double beta2() const { return beta2_; }
  double eps() const { return eps_; }
  double weight_decay() const { return weight_decay_; }
  bool amsgrad() const { return amsgrad_; }
  bool maximize() const { return maximize_; }

 protected:
  AdamFamilyOptions(double lr, double weight_decay) : lr_(lr), weight_decay_(weight_decay) {}

 private:
  template <class T>
  Self& set(T& field, T value) {
    field = value;
    return static_cast<Self&>(*this);
  }

  double lr_;
  double beta1_ = 0.9;
  double beta2_ = 0.999;
  double eps_ = 1e-8;
  double weight_decay_;
  bool amsgrad_ = false;
  bool maximize_ = false;
};

}  // namespace exadnn::optim
