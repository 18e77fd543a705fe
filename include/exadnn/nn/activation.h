// Activation layers (stateless modules around the elementwise ops).
#pragma once

#include "exadnn/nn/module.h"

namespace exadnn::nn {

/// max(x, 0).
class ReLU : public Module {
 public:
  Tensor forward(const Tensor& x) override;
  std::string name() const override { return "ReLU"; }
};

/// x for x > 0, slope·x otherwise.
class LeakyReLU : public Module {
 public:
  explicit LeakyReLU(double slope = 0.01) : slope_(slope) {}
  Tensor forward(const Tensor& x) override;
  std::string name() const override { return "LeakyReLU"; }
  std::string extra_repr() const override;

 private:
  double slope_;
};

/// x·Φ(x) with the tanh approximation 0.5·x·(1 + tanh(sqrt(2/π)·(x + 0.044715·x³))).
class GELU : public Module {
 public:
  Tensor forward(const Tensor& x) override;
  std::string name() const override { return "GELU"; }
  std::string extra_repr() const override { return "approximate=tanh"; }
};

class Sigmoid : public Module {
 public:
  Tensor forward(const Tensor& x) override;
  std::string name() const override { return "Sigmoid"; }
};

class Tanh : public Module {
 public:
  Tensor forward(const Tensor& x) override;
  std::string name() const override { return "Tanh"; }
};

/// exp(x) / sum(exp(x)) along `axis` (default the last).
class Softmax : public Module {
 public:
  explicit Softmax(int64_t axis = -1) : axis_(axis) {}
  Tensor forward(const Tensor& x) override;
  std::string name() const override { return "Softmax"; }
  std::string extra_repr() const override;

 private:
  int64_t axis_;
};

/// Function form of GELU (tanh approximation).
Tensor gelu(const Tensor& x);
/// Function form of LeakyReLU.
Tensor leaky_relu(const Tensor& x, double slope = 0.01);

}  // namespace exadnn::nn
