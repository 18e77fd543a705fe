// The backward engine: runs recorded nodes in reverse topological order.
#pragma once

#include <functional>
#include <vector>

#include "exadnn/core/tensor.h"

namespace exadnn::autograd {

/// Backpropagates `grad_roots` (one per root; undefined means ones for a one-element root) from
/// `roots` into every reachable leaf's .grad(). With retain_graph false, each node's saved
/// tensors are freed after use, and a second backward through it is an error.
void backward(const std::vector<Tensor>& roots, const std::vector<Tensor>& grad_roots,
              bool retain_graph = false);

/// Queues `callback` to run once the backward pass in progress on this thread has finished
/// with every node (e.g. a gradient reducer's final wait). Callbacks run in the order queued;
/// calling this outside a backward pass is an Error.
void queue_callback(std::function<void()> callback);

/// Gradients of `outputs` w.r.t. `inputs` (returned, not accumulated into .grad()).
std::vector<Tensor> grad(const std::vector<Tensor>& outputs, const std::vector<Tensor>& inputs,
                         const std::vector<Tensor>& grad_outputs = {}, bool retain_graph = false);

}  // namespace exadnn::autograd
