// The backward engine: runs recorded nodes in reverse topological order.
#pragma once

#include <vector>

#include "exadnn/core/tensor.h"

namespace exadnn::autograd {

/// Backpropagates `grad_roots` (one per root; undefined means ones for a one-element root) from
/// `roots` into every reachable leaf's .grad(). With retain_graph false, each node's saved
/// tensors are freed after use, and a second backward through it is an error.
void backward(const std::vector<Tensor>& roots, const std::vector<Tensor>& grad_roots,
              bool retain_graph = false);

/// Gradients of `outputs` w.r.t. `inputs` (returned, not accumulated into .grad()).
std::vector<Tensor> grad(const std::vector<Tensor>& outputs, const std::vector<Tensor>& inputs,
                         const std::vector<Tensor>& grad_outputs = {}, bool retain_graph = false);

}  // namespace exadnn::autograd
