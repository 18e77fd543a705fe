// Function: the public way to add a graph node with a hand-written forward and backward.
//
//   struct Cube : exadnn::autograd::Function {
//     std::vector<Tensor> forward(FunctionContext& ctx, const std::vector<Tensor>& in) override {
//       ctx.save_for_backward({in[0]});
//       return {in[0] * in[0] * in[0]};
//     }
//     std::vector<Tensor> backward(FunctionContext& ctx, const std::vector<Tensor>& g) override {
//       const Tensor& x = ctx.saved()[0];
//       return {g[0] * 3.0 * x * x};
//     }
//   };
//   Tensor y = exadnn::autograd::apply<Cube>({x})[0];
//
// forward runs with graph recording off; backward receives one gradient per output (zeros for
// outputs nothing depended on) and returns one per input (undefined where none is needed), of
// the input's shape (else an Error) and device (else an Error); one in another dtype is cast to
// the input's (a node computing in f32 on bf16 inputs under autocast may return f32 gradients).
#pragma once

#include <memory>
#include <string>
#include <typeinfo>
#include <vector>

#include "exadnn/autograd/node.h"
#include "exadnn/core/tensor.h"

namespace exadnn::autograd {

/// What forward leaves for backward: saved tensors and which inputs need gradients.
class FunctionContext {
 public:
  /// Keeps tensors for backward (outputs may be saved too; they are stored detached).
  void save_for_backward(std::vector<Tensor> tensors) { saved_ = std::move(tensors); }
  const std::vector<Tensor>& saved() const;
  /// Whether input i requires a gradient.
  bool needs_input_grad(size_t i) const { return i < needs_grad_.size() && needs_grad_[i]; }

 private:
  friend class FunctionNode;
  friend std::vector<Tensor> apply_function(std::shared_ptr<class Function>,
                                            const std::vector<Tensor>&);
  std::vector<Tensor> saved_;
  std::vector<bool> needs_grad_;
  bool released_ = false;
};

/// Base of user-defined differentiable operations.
class Function {
 public:
  virtual ~Function() = default;
  virtual std::vector<Tensor> forward(FunctionContext& ctx, const std::vector<Tensor>& inputs) = 0;
  virtual std::vector<Tensor> backward(FunctionContext& ctx,
                                       const std::vector<Tensor>& grad_outputs) = 0;
  /// Name used in error messages; defaults to the C++ type name.
  virtual std::string name() const { return typeid(*this).name(); }
};

/// Runs `fn` on `inputs` and records it in the graph when any input requires grad.
std::vector<Tensor> apply_function(std::shared_ptr<Function> fn, const std::vector<Tensor>& inputs);

/// Constructs F(args...) and applies it to `inputs`.
template <class F, class... Args>
std::vector<Tensor> apply(const std::vector<Tensor>& inputs, Args&&... args) {
  return apply_function(std::make_shared<F>(std::forward<Args>(args)...), inputs);
}

}  // namespace exadnn::autograd
