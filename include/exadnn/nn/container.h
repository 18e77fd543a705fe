// Containers: Sequential (a chain of layers) and Residual (a chain whose output is added to its
// input).
#pragma once

#include <initializer_list>
#include <memory>
#include <string>
#include <vector>

#include "exadnn/nn/module.h"

namespace exadnn::nn {

/// Applies its layers in order; children are named "0", "1", ... Its inputs are its first
/// layer's: a Sequential that starts with a module of several inputs (a skip block's (x, skip))
/// takes them all, and every later layer takes the previous one's output. Some adjacent pairs run
/// as one step with the same values (a Linear and a ReLU as one linear_relu node; a ReLU before
/// a MaxPool2d after it; src/nn/layer_fusion.h); --profile shows such a pair as one row,
/// "i Linear+ReLU".
class Sequential : public Module {
 public:
  Sequential() = default;
  Sequential(std::initializer_list<std::shared_ptr<Module>> layers);
  /// Appends a layer.
  void push_back(std::shared_ptr<Module> layer);
  using Module::forward;
  Tensor forward(const Tensor& x) override;
  /// The first layer's input names ({"x"} when empty).
  std::vector<std::string> input_names() const override;
  std::string name() const override { return "Sequential"; }
  size_t size() const { return layers_.size(); }
  const std::shared_ptr<Module>& operator[](size_t i) const { return layers_.at(i); }

 protected:
  /// Feeds `inputs` to the first layer, then chains the rest.
  Tensor forward_inputs(const std::vector<Tensor>& inputs) override;

 private:
  /// Runs layers first.. on y.
  Tensor forward_from(size_t first, Tensor y);
  std::vector<std::shared_ptr<Module>> layers_;
};

/// y = x + body(x); body's output must have x's shape.
class Residual : public Module {
 public:
  explicit Residual(std::shared_ptr<Sequential> body);
  Tensor forward(const Tensor& x) override;
  std::string name() const override { return "Residual"; }

 private:
  std::shared_ptr<Sequential> body_;
};

/// Flattens dims start..end into one: [N, C, H, W] -> [N, C·H·W] by default.
class Flatten : public Module {
 public:
  explicit Flatten(int64_t start_dim = 1, int64_t end_dim = -1)
      : start_(start_dim), end_(end_dim) {}
  Tensor forward(const Tensor& x) override { return x.flatten(start_, end_); }
  std::string name() const override { return "Flatten"; }

 private:
  int64_t start_, end_;
};

/// Zeroes each element with probability p in training (scaling the rest by 1/(1-p)); identity in
/// eval mode. Masks come from the default generator, so runs are reproducible from the seed.
class Dropout : public Module {
 public:
  explicit Dropout(double p = 0.5);
  Tensor forward(const Tensor& x) override;
  std::string name() const override { return "Dropout"; }
  std::string extra_repr() const override;

 private:
  double p_;
};

/// Normalises over the last dims `normalized_shape`: (x - mean) / sqrt(var + eps) · γ + β.
class LayerNorm : public Module {
 public:
  explicit LayerNorm(const Shape& normalized_shape, double eps = 1e-5, bool affine = true);
  Tensor forward(const Tensor& x) override;
  std::string name() const override { return "LayerNorm"; }
  std::string extra_repr() const override;

  Tensor weight;  ///< γ, normalized_shape (ones)
  Tensor bias;    ///< β, normalized_shape (zeros)

 private:
  Shape shape_;
  double eps_;
};

}  // namespace exadnn::nn
