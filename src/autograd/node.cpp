#include "exadnn/autograd/node.h"

#include <atomic>

#include "exadnn/autograd/grad_mode.h"
#include "exadnn/core/profiler.h"
#include "tensor_utils.h"

namespace exadnn::autograd {

namespace {
std::atomic<uint64_t> g_next_sequence_nr{0};

// True when nothing but `t` refers to its storage, so it may become a .grad() without a copy.
bool can_steal(const Tensor& t) {
  return t.impl_ptr().use_count() == 1 && t.storage().use_count() == 1 && t.is_contiguous() &&
         t.storage()->owned();
}
}  // namespace

Node::Node()
    : sequence_nr_(g_next_sequence_nr.fetch_add(1, std::memory_order_relaxed)),
      profile_layer_(profiler::current_layer()) {}

AccumulateGrad::AccumulateGrad(std::shared_ptr<TensorImpl> leaf) : leaf_(std::move(leaf)) {}

std::vector<Tensor> AccumulateGrad::apply(std::vector<Tensor>&& grad_outputs) {
  std::shared_ptr<TensorImpl> impl = leaf_.lock();
  Tensor& g = grad_outputs[0];
  if (!impl || !g.defined()) return {};
  Tensor leaf(impl);
  EXADNN_CHECK(g.shape() == leaf.shape(), "backward", "gradient of shape ", g.shape(),
               " arrived for a leaf of shape ", leaf.shape());
  AutogradMeta& meta = leaf.autograd_meta();
  if (!meta.grad.defined()) {
    const bool steal = g.dtype() == leaf.dtype() && can_steal(g);
    meta.grad = steal ? std::move(g) : detail::dense_copy(g, leaf.dtype());
  } else {
    meta.grad = detail::sum_of(meta.grad,
                               g.dtype() == leaf.dtype() ? g : detail::dense_copy(g, leaf.dtype()));
  }
  for (auto& [id, hook] : meta.hooks) hook(meta.grad);
  return {};
}

std::vector<Tensor> LambdaNode::apply(std::vector<Tensor>&& grad_outputs) {
  EXADNN_CHECK(backward_ != nullptr, name_,
               "backward through this part of the graph a second time, but its saved tensors "
               "were freed after the first backward; pass retain_graph=true to the first one");
  return backward_(grad_outputs);
}

Edge gradient_edge(const Tensor& t) {
  if (!t.defined() || !t.has_autograd_meta()) return {};
  AutogradMeta& meta = t.autograd_meta();
  if (meta.grad_fn) return {meta.grad_fn, meta.output_nr};
  if (!meta.requires_grad) return {};
  std::shared_ptr<Node> acc = meta.grad_accumulator.lock();
  if (!acc) {
    acc = std::make_shared<AccumulateGrad>(t.impl_ptr());
    meta.grad_accumulator = acc;
  }
  return {acc, 0};
}

bool any_requires_grad(std::initializer_list<const Tensor*> inputs) {
  if (!GradMode::is_enabled()) return false;
  for (const Tensor* t : inputs)
    if (t->defined() && t->requires_grad()) return true;
  return false;
}

bool any_requires_grad(const std::vector<Tensor>& inputs) {
  if (!GradMode::is_enabled()) return false;
  for (const Tensor& t : inputs)
    if (t.defined() && t.requires_grad()) return true;
  return false;
}

void connect(const std::shared_ptr<Node>& node, const std::vector<Tensor>& inputs,
             std::vector<Tensor>& outputs) {
  node->next_edges().reserve(inputs.size());
  for (const Tensor& t : inputs) node->next_edges().push_back(gradient_edge(t));
  node->set_num_outputs(static_cast<uint32_t>(outputs.size()));
  node->output_info().reserve(outputs.size());
  for (uint32_t i = 0; i < outputs.size(); ++i) {
    Tensor& out = outputs[i];
    node->output_info().push_back({out.shape(), out.dtype(), out.device()});
    AutogradMeta& meta = out.autograd_meta();
    meta.grad_fn = node;
    meta.output_nr = i;
  }
}

void record_node(const char* name, std::initializer_list<Tensor> inputs, Tensor& output,
                 LambdaNode::Backward backward) {
  auto node = std::make_shared<LambdaNode>(name, std::move(backward));
  node->next_edges().reserve(inputs.size());
  for (const Tensor& t : inputs) node->next_edges().push_back(gradient_edge(t));
  AutogradMeta& meta = output.autograd_meta();
  meta.grad_fn = std::move(node);
  meta.output_nr = 0;
}

}  // namespace exadnn::autograd
