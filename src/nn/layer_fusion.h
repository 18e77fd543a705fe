// Adjacent layers of a Sequential that run as one step: the same values (see each rule), less
// memory traffic. Only exact classes match (typeid): a subclass may override forward.
//
//   Linear, ReLU       linear_relu: one graph node whose forward is one GEMM with the bias and
//                      the ReLU applied in its epilogue (oneDNN post-ops on the CPU).
//   ReLU, MaxPool2d    max pooling first, then the ReLU on the pooled tensor (1/k² of the
//                      elements for a k×k stride-k pool): max over a window commutes with a
//                      non-decreasing function, and both orders route a window's gradient to the
//                      same element (its first maximum) or, where the maximum is ≤ 0, nowhere.
//                      Identical values and gradients for inputs without NaN (exadnn's relu maps
//                      NaN to 0 before pooling, the pool keeps a NaN that the relu then zeroes).
//
// EXADNN_LAYER_FUSION=0 turns the rules off (every layer runs on its own), to measure what they
// gain or to rule them out when a result looks wrong.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "exadnn/nn/module.h"

namespace exadnn::nn::fusion {

/// The name of the fused step that starts at layers[index] ("Linear+ReLU", ...), or "" when
/// layers[index] and layers[index + 1] are not a fusable pair (or index is the last layer, or
/// EXADNN_LAYER_FUSION=0).
std::string fused_pair_name(const std::vector<std::shared_ptr<Module>>& layers, size_t index);

/// Runs layers[index] and layers[index + 1] on x as one step; fused_pair_name must be non-empty.
Tensor run_fused_pair(const std::vector<std::shared_ptr<Module>>& layers, size_t index,
                      const Tensor& x);

}  // namespace exadnn::nn::fusion
