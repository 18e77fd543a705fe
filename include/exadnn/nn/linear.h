// nn::Linear: y = x·Wᵀ + b.
#pragma once

#include "exadnn/nn/module.h"

namespace exadnn::nn {

/// Options of Linear: sizes, bias on/off.
class LinearOptions {
 public:
  LinearOptions(int64_t in_features, int64_t out_features) : in_(in_features), out_(out_features) {}
  LinearOptions& bias(bool on) {
    bias_ = on;
    return *this;
  }
  int64_t in_features() const { return in_; }
  int64_t out_features() const { return out_; }
  bool bias() const { return bias_; }

 private:
  int64_t in_, out_;
  bool bias_ = true;
};

/// Fully connected layer. x: [..., in] -> y: [..., out]; weight [out, in], bias [out].
/// Initialised as PyTorch does: weight and bias U(-1/sqrt(in), 1/sqrt(in)).
class Linear : public Module {
 public:
  explicit Linear(const LinearOptions& options);
  Linear(int64_t in_features, int64_t out_features)
      : Linear(LinearOptions(in_features, out_features)) {}
  Tensor forward(const Tensor& x) override;
  /// relu(forward(x)) as one node (linear_relu); Sequential calls it for a Linear and a ReLU.
  Tensor forward_relu(const Tensor& x);
  std::string name() const override { return "Linear"; }
  std::string extra_repr() const override;

  Tensor weight;
  Tensor bias;  ///< undefined without bias

 private:
  void check_input(const Tensor& x) const;
  LinearOptions options_;
};

}  // namespace exadnn::nn
