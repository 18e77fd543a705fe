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

Residual::Residual(std::shared_ptr<Sequential> body) : body_(register_module("body", std::move(body))) {}

Tensor Residual::forward(const Tensor& x) {
  Tensor y = body_->forward(x);
  EXADNN_CHECK(y.shape() == x.shape(), "Residual", "the body maps shape ", x.shape(), " to ",
               y.shape(), "; a residual block needs them equal");
  return x + y;
}

}  // namespace exadnn::nn
