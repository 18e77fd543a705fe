#include "exadnn/autograd/engine.h"

#include <optional>
#include <queue>
#include <unordered_map>
#include <unordered_set>

#include "exadnn/autograd/grad_mode.h"
#include "exadnn/autograd/node.h"
#include "exadnn/backend/precision_policy.h"
#include "exadnn/core/profiler.h"
#include "tensor_utils.h"

namespace exadnn::autograd {

namespace {

struct LaterFirst {  // later-created nodes run first
  bool operator()(const Node* a, const Node* b) const {
    return a->sequence_nr() < b->sequence_nr();
  }
};

// Adds `g` into slot `i` of a node's incoming-gradient buffer.
void accumulate_into(std::vector<Tensor>& buffer, uint32_t i, Tensor&& g) {
  if (buffer.size() <= i) buffer.resize(i + 1);
  if (!buffer[i].defined()) {
    buffer[i] = std::move(g);
  } else {
    EXADNN_CHECK(buffer[i].shape() == g.shape(), "backward", "gradients of shapes ",
                 buffer[i].shape(), " and ", g.shape(), " meet at one tensor");
    buffer[i] = detail::sum_of(
        buffer[i], g.dtype() == buffer[i].dtype() ? g : detail::dense_copy(g, buffer[i].dtype()));
  }
}

Tensor root_gradient(const Tensor& root, const Tensor& given) {
  if (given.defined()) {
    EXADNN_CHECK(given.shape() == root.shape(), "backward", "gradient of shape ", given.shape(),
                 " given for an output of shape ", root.shape());
    return given;
  }
  EXADNN_CHECK(root.numel() == 1, "backward",
               "a gradient can be implied only for a one-element output, got shape ", root.shape(),
               "; pass the output's gradient explicitly");
  return detail::filled(root.shape(), root.dtype(), root.device(), 1.0);
}

// Callbacks queued by the backward passes running on this thread (innermost last).
thread_local std::vector<std::vector<std::function<void()>>> t_callbacks;

// Makes a callback list for one backward pass and runs it when the pass completes.
class CallbackScope {
 public:
  CallbackScope() { t_callbacks.emplace_back(); }
  ~CallbackScope() {
    if (!t_callbacks.empty()) t_callbacks.pop_back();
  }
  // Runs the queued callbacks (which may queue more).
  void run() {
    for (size_t i = 0; i < t_callbacks.back().size(); ++i) {
      std::function<void()> callback = std::move(t_callbacks.back()[i]);
      callback();
    }
    t_callbacks.back().clear();
  }
};

// Runs the graph. If `captures` is non-empty, gradients reaching those edges are stored there
// instead of being accumulated into leaves.
void run(const std::vector<Tensor>& roots, const std::vector<Tensor>& grad_roots, bool retain_graph,
         const std::vector<Edge>& capture_edges, std::vector<Tensor>* captures) {
  EXADNN_CHECK(grad_roots.empty() || grad_roots.size() == roots.size(), "backward", roots.size(),
               " outputs but ", grad_roots.size(), " gradients");
  std::unordered_map<Node*, std::vector<Tensor>> buffers;
  std::unordered_map<Node*, int> dependencies;
  std::vector<std::shared_ptr<Node>> starts;

  for (size_t i = 0; i < roots.size(); ++i) {
    const Tensor& root = roots[i];
    EXADNN_CHECK(root.defined() && root.requires_grad(), "backward", "output ", i,
                 " does not require grad (no input it depends on requires grad, "
                 "or it was computed under NoGradGuard)");
    Edge e = gradient_edge(root);
    accumulate_into(buffers[e.node.get()], e.input_nr,
                    root_gradient(root, grad_roots.empty() ? Tensor() : grad_roots[i]));
    starts.push_back(e.node);
  }

  // Count, for every reachable node, how many edges point at it.
  std::vector<Node*> stack;
  std::unordered_set<Node*> seen;
  for (auto& s : starts)
    if (seen.insert(s.get()).second) stack.push_back(s.get());
  while (!stack.empty()) {
    Node* n = stack.back();
    stack.pop_back();
    for (const Edge& e : n->next_edges()) {
      if (!e.valid()) continue;
      ++dependencies[e.node.get()];
      if (seen.insert(e.node.get()).second) stack.push_back(e.node.get());
    }
  }

  auto capture_slot = [&](Node* n, uint32_t input_nr) -> int {
    for (size_t c = 0; c < capture_edges.size(); ++c)
      if (capture_edges[c].node.get() == n && capture_edges[c].input_nr == input_nr)
        return static_cast<int>(c);
    return -1;
  };

  std::priority_queue<Node*, std::vector<Node*>, LaterFirst> ready;
  std::unordered_set<Node*> queued;
  for (auto& s : starts)
    if (dependencies[s.get()] == 0 && queued.insert(s.get()).second) ready.push(s.get());

  NoGradGuard no_grad;  // gradient rules are not themselves recorded
  // Gradient rules compute in the dtypes the forward pass recorded, even inside an autocast scope.
  precision::Autocast autocast_off(DType::f32);
  CallbackScope callbacks;
  while (!ready.empty()) {
    Node* node = ready.top();
    ready.pop();
    std::vector<Tensor> grads = std::move(buffers[node]);
    buffers.erase(node);
    grads.resize(node->num_outputs());
    if (captures) {
      for (uint32_t i = 0; i < grads.size(); ++i) {
        const int slot = capture_slot(node, i);
        if (slot >= 0) (*captures)[slot] = grads[i];
      }
      if (dynamic_cast<AccumulateGrad*>(node)) continue;  // grad() does not touch .grad()
    }
    for (uint32_t i = 0; i < grads.size(); ++i) {  // zeros for outputs nothing depended on
      if (grads[i].defined() || i >= node->output_info().size()) continue;
      const auto& info = node->output_info()[i];
      grads[i] = detail::filled(info.shape, info.dtype, info.device, 0.0);
    }
    std::vector<Tensor> input_grads;
    {
      std::optional<profiler::Region> region;  // charged to the layer that recorded the node
      if (profiler::enabled())
        region.emplace(profiler::Phase::backward,
                       node->profile_layer() ? *node->profile_layer() : "(" + node->name() + ")");
      input_grads = node->apply(std::move(grads));
    }
    if (!retain_graph) node->release();
    const auto& edges = node->next_edges();
    EXADNN_CHECK(input_grads.empty() || input_grads.size() == edges.size(), node->name(),
                 "backward returned ", input_grads.size(), " gradients for ", edges.size(),
                 " inputs");
    for (size_t i = 0; i < edges.size(); ++i) {
      const Edge& e = edges[i];
      if (!e.valid()) continue;
      if (i < input_grads.size() && input_grads[i].defined())
        accumulate_into(buffers[e.node.get()], e.input_nr, std::move(input_grads[i]));
      if (--dependencies[e.node.get()] == 0) ready.push(e.node.get());
    }
  }
  callbacks.run();
}

}  // namespace

void queue_callback(std::function<void()> callback) {
  EXADNN_CHECK(!t_callbacks.empty(), "autograd::queue_callback",
               "no backward pass is running on this thread");
  t_callbacks.back().push_back(std::move(callback));
}

void backward(const std::vector<Tensor>& roots, const std::vector<Tensor>& grad_roots,
              bool retain_graph) {
  run(roots, grad_roots, retain_graph, {}, nullptr);
}

std::vector<Tensor> grad(const std::vector<Tensor>& outputs, const std::vector<Tensor>& inputs,
                         const std::vector<Tensor>& grad_outputs, bool retain_graph) {
  std::vector<Edge> edges;
  for (size_t i = 0; i < inputs.size(); ++i) {
    EXADNN_CHECK(inputs[i].defined() && inputs[i].requires_grad(), "grad", "input ", i,
                 " does not require grad");
    edges.push_back(gradient_edge(inputs[i]));
  }
  std::vector<Tensor> captures(inputs.size());
  run(outputs, grad_outputs, retain_graph, edges, &captures);
  return captures;
}

}  // namespace exadnn::autograd

namespace exadnn {

void Tensor::backward(const Tensor& grad, bool retain_graph) const {
  autograd::backward({*this}, {grad}, retain_graph);
}

}  // namespace exadnn
