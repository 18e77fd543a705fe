#include "exadnn/nn/container.h"

#include "exadnn/ops/operators.h"

namespace exadnn::nn {

Sequential::Sequential(std::initializer_list<std::shared_ptr<Module>> layers) {
  for (const auto& layer : layers) push_back(layer);
}

void Sequential::push_back(std::shared_ptr<Module> layer) {
  layers_.push_back(register_module(std::to_string(layers_.size()), std::move(layer)));
}

Tensor Sequential::forward(const Tensor& x) {
  Tensor y = x;
  for (const auto& layer : layers_) y = layer->forward(y);
  return y;
}

std::vector<std::string> Sequential::input_names() const {
  return layers_.empty() ? Module::input_names() : layers_.front()->input_names();
}

Tensor Sequential::forward_inputs(const std::vector<Tensor>& inputs) {
  // input_names() has several entries, so there is a first layer and it takes them all.
  Tensor y = layers_.front()->forward(inputs);
  for (size_t i = 1; i < layers_.size(); ++i) y = layers_[i]->forward(y);
  return y;
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
