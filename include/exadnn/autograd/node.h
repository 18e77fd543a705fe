// Graph nodes of the define-by-run autodiff: each node turns the gradients of its outputs into
// gradients of its inputs, and points (edges) at the nodes that produced those inputs.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "exadnn/autograd/grad_mode.h"
#include "exadnn/core/tensor.h"

namespace exadnn::autograd {

class Node;

/// Where a gradient goes: input `input_nr` of `node` (null node: no gradient wanted).
struct Edge {
  std::shared_ptr<Node> node;
  uint32_t input_nr = 0;
  bool valid() const noexcept { return node != nullptr; }
};

/// A recorded operation. Its "inputs" in backward are the gradients of the op's outputs.
class Node : public std::enable_shared_from_this<Node> {
 public:
  Node();
  virtual ~Node() = default;
  /// Gradients w.r.t. the op's inputs (one per next edge; undefined where none), given the
  /// gradients w.r.t. its outputs (undefined for outputs nothing depended on).
  virtual std::vector<Tensor> apply(std::vector<Tensor>&& grad_outputs) = 0;
  /// Op name, for error messages ("mul", "MyFunction", ...).
  virtual std::string name() const = 0;
  /// Frees saved tensors after backward unless the graph is retained.
  virtual void release() {}

  /// Number of outputs of the op (gradients apply() receives).
  uint32_t num_outputs() const noexcept { return num_outputs_; }
  void set_num_outputs(uint32_t n) noexcept { num_outputs_ = n; }
  const std::vector<Edge>& next_edges() const noexcept { return next_edges_; }
  std::vector<Edge>& next_edges() noexcept { return next_edges_; }
  /// Creation order; later nodes run first in backward.
  uint64_t sequence_nr() const noexcept { return sequence_nr_; }
  /// The layer open when the node was recorded (profiler::LayerScope), null when profiling was
  /// off or no layer was open: its backward time is charged there.
  const std::shared_ptr<const std::string>& profile_layer() const noexcept {
    return profile_layer_;
  }

  /// Shapes/dtypes of the op's outputs, to make zero gradients for unused outputs.
  struct OutputInfo {
    Shape shape;
    DType dtype = DType::f32;
    Device device;
  };
  std::vector<OutputInfo>& output_info() noexcept { return output_info_; }

 private:
  std::vector<Edge> next_edges_;
  std::vector<OutputInfo> output_info_;
  uint32_t num_outputs_ = 1;
  uint64_t sequence_nr_;
  std::shared_ptr<const std::string> profile_layer_;
};

/// Sink node of a leaf that requires grad: adds incoming gradients into the leaf's .grad().
class AccumulateGrad final : public Node {
 public:
  explicit AccumulateGrad(std::shared_ptr<TensorImpl> leaf);
  std::vector<Tensor> apply(std::vector<Tensor>&& grad_outputs) override;
  std::string name() const override { return "AccumulateGrad"; }

 private:
  std::weak_ptr<TensorImpl> leaf_;
};

/// A node whose backward rule is a callable; what the built-in ops record.
class LambdaNode final : public Node {
 public:
  using Backward = std::function<std::vector<Tensor>(const std::vector<Tensor>& grad_outputs)>;
  LambdaNode(const char* name, Backward backward) : name_(name), backward_(std::move(backward)) {}
  std::vector<Tensor> apply(std::vector<Tensor>&& grad_outputs) override;
  std::string name() const override { return name_; }
  void release() override { backward_ = nullptr; }

 private:
  const char* name_;
  Backward backward_;
};

/// The edge a gradient for `t` must follow: its grad_fn, or its leaf accumulator, or none.
Edge gradient_edge(const Tensor& t);

/// True when grad mode is on and any of `inputs` requires grad.
bool any_requires_grad(std::initializer_list<const Tensor*> inputs);
bool any_requires_grad(const std::vector<Tensor>& inputs);

/// Connects `node` to `inputs` (its next edges) and makes it the grad_fn of `outputs`.
void connect(const std::shared_ptr<Node>& node, const std::vector<Tensor>& inputs,
             std::vector<Tensor>& outputs);

/// Makes a LambdaNode for a single-output op and attaches it to `output` (see record()).
void record_node(const char* name, std::initializer_list<Tensor> inputs, Tensor& output,
                 LambdaNode::Backward backward);

/// Records a single-output op: `backward(grad_outputs)` returns one gradient per input (undefined
/// where the input needs none; the rule itself undoes broadcasting). Costs nothing, not even the
/// closure, when no input requires grad or grad mode is off.
template <class Rule>
void record(const char* name, std::initializer_list<Tensor> inputs, Tensor& output, Rule&& rule) {
  if (!GradMode::is_enabled()) return;
  bool any = false;
  for (const Tensor& t : inputs) any = any || (t.defined() && t.requires_grad());
  if (any) record_node(name, inputs, output, LambdaNode::Backward(std::forward<Rule>(rule)));
}

}  // namespace exadnn::autograd
