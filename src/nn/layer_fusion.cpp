// The fusion rules of layer_fusion.h.
#include "layer_fusion.h"

#include <cstdlib>
#include <cstring>
#include <typeinfo>

#include "exadnn/nn/activation.h"
#include "exadnn/nn/linear.h"
#include "exadnn/nn/pooling.h"
#include "exadnn/ops/operators.h"

namespace exadnn::nn::fusion {

namespace {

template <class First, class Second>
bool is_pair(const std::vector<std::shared_ptr<Module>>& layers, size_t index) {
  return index + 1 < layers.size() && typeid(*layers[index]) == typeid(First) &&
         typeid(*layers[index + 1]) == typeid(Second);
}

// False when EXADNN_LAYER_FUSION=0 (read once).
bool fusion_enabled() {
  static const bool enabled = [] {
    const char* env = std::getenv("EXADNN_LAYER_FUSION");
    return env == nullptr || std::strcmp(env, "0") != 0;
  }();
  return enabled;
}

}  // namespace

std::string fused_pair_name(const std::vector<std::shared_ptr<Module>>& layers, size_t index) {
  if (!fusion_enabled()) return "";
  if (is_pair<Linear, ReLU>(layers, index)) return "Linear+ReLU";
  if (is_pair<ReLU, MaxPool2d>(layers, index)) return "ReLU+MaxPool2d";
  return "";
}

Tensor run_fused_pair(const std::vector<std::shared_ptr<Module>>& layers, size_t index,
                      const Tensor& x) {
  if (is_pair<Linear, ReLU>(layers, index))
    return static_cast<Linear&>(*layers[index]).forward_relu(x);
  if (is_pair<ReLU, MaxPool2d>(layers, index))  // relu(max_pool(x)) == max_pool(relu(x))
    return relu(layers[index + 1]->forward(x));
  throw Error("Sequential", "layers " + std::to_string(index) + " and " +
                                std::to_string(index + 1) + " are not a fusable pair");
}

}  // namespace exadnn::nn::fusion
