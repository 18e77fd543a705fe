#include "exadnn/nn/container.h"

#include <optional>
#include <typeinfo>

#include "exadnn/autograd/grad_mode.h"

#include "exadnn/core/profiler.h"
#include "exadnn/nn/activation.h"
#include "exadnn/nn/linear.h"
#include "exadnn/ops/operators.h"

namespace exadnn::nn {

namespace {

// Runs one layer; with profiling on, inside a scope labelled "<index> <name>" (profiler.h) —
// only while a graph is recorded: evaluation's forward passes are not training steps.
template <class Input>
Tensor forward_layer(size_t index, Module& layer, const Input& input) {
  if (!profiler::enabled() || !GradMode::is_enabled()) return layer.forward(input);
  const profiler::LayerScope scope(std::to_string(index) + " " + layer.name());
  return layer.forward(input);
}

// The Linear at `index` when it is followed by a ReLU (both exactly those classes: a subclass may
// override forward), so the pair runs as one linear_relu node; null otherwise.
Linear* linear_before_relu(const std::vector<std::shared_ptr<Module>>& layers, size_t index) {
  if (index + 1 >= layers.size()) return nullptr;
  const Module& first = *layers[index];
  const Module& second = *layers[index + 1];
  if (typeid(first) != typeid(Linear) || typeid(second) != typeid(ReLU)) return nullptr;
  return static_cast<Linear*>(layers[index].get());
}

}  // namespace

Sequential::Sequential(std::initializer_list<std::shared_ptr<Module>> layers) {
  for (const auto& layer : layers) push_back(layer);
}

void Sequential::push_back(std::shared_ptr<Module> layer) {
  layers_.push_back(register_module(std::to_string(layers_.size()), std::move(layer)));
}

Tensor Sequential::forward(const Tensor& x) {
  return forward_from(0, x);
}

Tensor Sequential::forward_from(size_t first, Tensor y) {
  for (size_t i = first; i < layers_.size(); ++i) {
    if (Linear* linear = linear_before_relu(layers_, i)) {  // one node, labelled "i Linear+ReLU"
      std::optional<profiler::LayerScope> scope;
      if (profiler::enabled() && GradMode::is_enabled())
        scope.emplace(std::to_string(i) + " Linear+ReLU");
      y = linear->forward_relu(y);
      ++i;
      continue;
    }
    y = forward_layer(i, *layers_[i], y);
  }
  return y;
}

std::vector<std::string> Sequential::input_names() const {
  return layers_.empty() ? Module::input_names() : layers_.front()->input_names();
}

Tensor Sequential::forward_inputs(const std::vector<Tensor>& inputs) {
  // input_names() has several entries, so there is a first layer and it takes them all.
  return forward_from(1, forward_layer(0, *layers_.front(), inputs));
}

Residual::Residual(std::shared_ptr<Sequential> body)
    : body_(register_module("body", std::move(body))) {}

Tensor Residual::forward(const Tensor& x) {
  Tensor y = body_->forward(x);
  EXADNN_CHECK(y.shape() == x.shape(), "Residual", "the body maps shape ", x.shape(), " to ",
               y.shape(), "; a residual block needs them equal");
  return x + y;
}

}  // namespace exadnn::nn
