#include "exadnn/autograd/function.h"

#include "exadnn/autograd/grad_mode.h"

namespace exadnn::autograd {

const std::vector<Tensor>& FunctionContext::saved() const {
  EXADNN_CHECK(!released_, "FunctionContext",
               "saved tensors were freed after the first backward; pass retain_graph=true");
  return saved_;
}

// The graph node of one application of a user Function.
class FunctionNode final : public Node {
 public:
  FunctionNode(std::shared_ptr<Function> fn, FunctionContext ctx, std::vector<Node::OutputInfo> in)
      : fn_(std::move(fn)), ctx_(std::move(ctx)), inputs_(std::move(in)) {}

  std::vector<Tensor> apply(std::vector<Tensor>&& grad_outputs) override {
    std::vector<Tensor> grads = fn_->backward(ctx_, grad_outputs);
    EXADNN_CHECK(grads.size() == inputs_.size(), name(), "backward returned ", grads.size(),
                 " gradients for ", inputs_.size(), " inputs");
    for (size_t i = 0; i < grads.size(); ++i) {
      if (!grads[i].defined()) continue;
      EXADNN_CHECK(grads[i].shape() == inputs_[i].shape, name(),
                   "backward returned a gradient of "
                   "shape ",
                   grads[i].shape(), " for input ", i, " of shape ", inputs_[i].shape);
      EXADNN_CHECK(grads[i].device() == inputs_[i].device, name(),
                   "backward returned a gradient on ", grads[i].device().str(), " for input ", i,
                   " on ", inputs_[i].device.str());
      // A gradient in another dtype (an f32 one for a bf16 input under autocast) is cast to the
      // input's: the nodes behind read it in their own dtype.
      if (grads[i].dtype() != inputs_[i].dtype) grads[i] = grads[i].to(inputs_[i].dtype);
    }
    return grads;
  }
  std::string name() const override { return fn_->name(); }
  void release() override {
    ctx_.saved_.clear();
    ctx_.released_ = true;
  }

 private:
  std::shared_ptr<Function> fn_;
  FunctionContext ctx_;
  std::vector<Node::OutputInfo> inputs_;
};

std::vector<Tensor> apply_function(std::shared_ptr<Function> fn,
                                   const std::vector<Tensor>& inputs) {
  FunctionContext ctx;
  for (const Tensor& t : inputs) ctx.needs_grad_.push_back(t.defined() && t.requires_grad());
  std::vector<Tensor> outputs;
  {
    NoGradGuard no_grad;
    outputs = fn->forward(ctx, inputs);
  }
  if (!any_requires_grad(inputs)) return outputs;

  // Saved tensors are kept detached so an output saved for backward does not own its own node.
  for (Tensor& t : ctx.saved_)
    if (t.defined()) t = t.detach();
  // An input returned unchanged becomes a fresh alias, so the input keeps its own history.
  for (Tensor& out : outputs) {
    EXADNN_CHECK(out.defined(), fn->name(), "forward returned an undefined tensor");
    for (const Tensor& in : inputs)
      if (in.defined() && out.impl_ptr() == in.impl_ptr()) out = out.detach();
  }
  std::vector<Node::OutputInfo> input_info;
  for (const Tensor& t : inputs)
    input_info.push_back(t.defined() ? Node::OutputInfo{t.shape(), t.dtype(), t.device()}
                                     : Node::OutputInfo{});
  auto node = std::make_shared<FunctionNode>(fn, std::move(ctx), std::move(input_info));
  connect(node, inputs, outputs);
  return outputs;
}

}  // namespace exadnn::autograd
