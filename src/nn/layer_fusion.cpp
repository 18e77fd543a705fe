// The fusion rules of layer_fusion.h.
#include "layer_fusion.h"

#include <cstdlib>
#include <cstring>
#include <typeinfo>

#include "exadnn/nn/activation.h"
#include "exadnn/nn/batch_norm.h"
#include "exadnn/nn/conv.h"
#include "exadnn/nn/linear.h"
#include "exadnn/nn/pooling.h"
#include "exadnn/ops/operators.h"

namespace exadnn::nn::fusion {

namespace {

using Layers = std::vector<std::shared_ptr<Module>>;

// Whether layers[index], layers[index + 1], ... are exactly of the classes Kinds, in order.
template <class... Kinds>
bool starts(const Layers& layers, size_t index) {
  if (index + sizeof...(Kinds) > layers.size()) return false;
  size_t i = index;
  return ((typeid(*layers[i++]) == typeid(Kinds)) && ...);
}

// False when EXADNN_LAYER_FUSION=0 (read once).
bool fusion_enabled() {
  static const bool enabled = [] {
    const char* env = std::getenv("EXADNN_LAYER_FUSION");
    return env == nullptr || std::strcmp(env, "0") != 0;
  }();
  return enabled;
}

// Whether a Conv2d[, ReLU], MaxPool2d step starts at layers[index].
bool starts_conv_pool(const Layers& layers, size_t index) {
  return starts<Conv2d, ReLU, MaxPool2d>(layers, index) || starts<Conv2d, MaxPool2d>(layers, index);
}

// max_pool(conv(x)) of the step at layers[index] (`length` layers: with the ReLU when 3) as one
// conv2d_[relu_]max_pool2d node. Its output is channels-last when the next step is another such
// node, which reads it so without a reorder.
Tensor conv_max_pool(const Layers& layers, size_t index, size_t length, const Tensor& x) {
  const auto& conv = static_cast<const Conv2d&>(*layers[index]);
  const auto& pool = static_cast<const MaxPool2d&>(*layers[index + length - 1]);
  const MemoryFormat format = starts_conv_pool(layers, index + length) ? MemoryFormat::channels_last
                                                                       : MemoryFormat::contiguous;
  const auto node = length == 3 ? &conv2d_relu_max_pool2d : &conv2d_max_pool2d;
  return node(x, conv.weight, conv.bias, conv.options().params(), pool.kernel(), pool.stride(),
              pool.padding(), format);
}

// Whether a BatchNorm1d/2d, ReLU step starts at layers[index]. Not when the ReLU is followed by
// max pooling: ReLU+MaxPool2d applies the ReLU to the pooled tensor, a quarter of the size.
bool starts_batch_norm_relu(const Layers& layers, size_t index) {
  return (starts<BatchNorm2d, ReLU>(layers, index) || starts<BatchNorm1d, ReLU>(layers, index)) &&
         !starts<ReLU, MaxPool2d>(layers, index + 1);
}

}  // namespace

Step fused_step(const Layers& layers, size_t index) {
  if (!fusion_enabled()) return {};
  if (starts<Conv2d, ReLU, MaxPool2d>(layers, index)) return {"Conv2d+ReLU+MaxPool2d", 3};
  if (starts<Conv2d, MaxPool2d>(layers, index)) return {"Conv2d+MaxPool2d", 2};
  if (starts<Linear, ReLU>(layers, index)) return {"Linear+ReLU", 2};
  if (starts<ReLU, MaxPool2d>(layers, index)) return {"ReLU+MaxPool2d", 2};
  if (starts_batch_norm_relu(layers, index)) return {layers[index]->name() + "+ReLU", 2};
  return {};
}

Tensor run_fused_step(const Layers& layers, size_t index, const Tensor& x) {
  if (starts<Conv2d, ReLU, MaxPool2d>(layers, index))  // relu after the pool, in the node
    return conv_max_pool(layers, index, 3, x);
  if (starts<Conv2d, MaxPool2d>(layers, index)) return conv_max_pool(layers, index, 2, x);
  if (starts<Linear, ReLU>(layers, index))
    return static_cast<Linear&>(*layers[index]).forward_relu(x);
  if (starts<ReLU, MaxPool2d>(layers, index))  // relu(max_pool(x)) == max_pool(relu(x))
    return relu(layers[index + 1]->forward(x));
  if (starts_batch_norm_relu(layers, index))
    return static_cast<BatchNorm&>(*layers[index]).forward_relu(x);
  throw Error("Sequential", "no fused step starts at layer " + std::to_string(index));
}

}  // namespace exadnn::nn::fusion
