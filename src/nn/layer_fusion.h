// Runs of adjacent layers of a Sequential that run as one step: the same values (see each rule;
// the GEMM and convolution nodes may sum in another order), less memory traffic. Only exact classes
// match (typeid): a subclass may override forward.
//
//   Linear, ReLU                linear_relu: one graph node whose forward is one GEMM with the
//                               bias and the ReLU applied in its epilogue (oneDNN post-ops).
//   Conv2d, ReLU, MaxPool2d     conv2d_relu_max_pool2d / conv2d_max_pool2d (one node: on the
//   Conv2d, MaxPool2d           CPU one oneDNN step in the convolution's own layout, or exadnn's
//                               loop for few input channels, the convolution's output never
//                               written to a tensor); the ReLU on the pooled values, as the next
//                               rule, applied where the kernels write them and masked where they
//                               read their gradient. Where the next step is another of these, the
//                               pooled tensor is channels-last (memory_format.h), which the next
//                               convolution reads as it is.
//   ReLU, MaxPool2d             max pooling first, then the ReLU on the pooled tensor (1/k² of the
//                               elements for a k×k stride-k pool): max over a window commutes
//                               with a non-decreasing function, and both orders route a window's
//                               gradient to the same element (its first maximum) or, where the
//                               maximum is ≤ 0, nowhere. Identical values and gradients for
//                               inputs without NaN (exadnn's relu maps NaN to 0 before pooling,
//                               the pool keeps a NaN that the relu then zeroes).
//   BatchNorm2d, ReLU           batch_norm_relu: the ReLU applied as batch norm writes its output,
//   BatchNorm1d, ReLU           its mask inside batch norm's backward; the same values and
//                               gradients bit for bit (CPU f32/f64). Not when the ReLU is
//                               followed by max pooling (the rule above takes that ReLU).
//
// EXADNN_LAYER_FUSION=0 turns the rules off (every layer runs on its own), to measure what they
// gain or to rule them out when a result looks wrong.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "exadnn/nn/module.h"

namespace exadnn::nn::fusion {

/// A fused step starting at some layer: its name for the profiler ("Linear+ReLU") and how many
/// layers it covers (0: none starts there).
struct Step {
  std::string name;
  size_t layers = 0;
};

/// The fused step that starts at layers[index] (layers = 0 when none does, or when
/// EXADNN_LAYER_FUSION=0).
Step fused_step(const std::vector<std::shared_ptr<Module>>& layers, size_t index);

/// Runs the fused step starting at layers[index] on x; fused_step must have found one.
Tensor run_fused_step(const std::vector<std::shared_ptr<Module>>& layers, size_t index,
                      const Tensor& x);

}  // namespace exadnn::nn::fusion
