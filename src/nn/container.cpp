#include "exadnn/nn/container.h"

#include <optional>

#include "exadnn/autograd/grad_mode.h"
#include "exadnn/core/profiler.h"
#include "exadnn/ops/operators.h"
#include "layer_fusion.h"

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
    const fusion::Step fused = fusion::fused_step(layers_, i);
    if (fused.layers > 0) {  // several layers as one step, profiled as "i Linear+ReLU" and the like
      std::optional<profiler::LayerScope> scope;
      if (profiler::enabled() && GradMode::is_enabled())
        scope.emplace(std::to_string(i) + " " + fused.name);
      y = fusion::run_fused_step(layers_, i, y);
      i += fused.layers - 1;
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
