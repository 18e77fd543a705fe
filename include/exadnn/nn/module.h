// nn::Module: a layer or a model — named parameters and buffers, child modules, train/eval mode,
// dtype/device moves and state dicts.
#pragma once

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "exadnn/core/state_dict.h"
#include "exadnn/core/tensor.h"

namespace exadnn::nn {

/// Base of every layer. Subclasses own their parameters as Tensor members and register them
/// (by address) in the constructor, so moves between dtypes or devices rebind the members too.
/// Modules are shared (std::shared_ptr) and not copyable.
class Module {
 public:
  Module() = default;
  Module(const Module&) = delete;
  Module& operator=(const Module&) = delete;
  virtual ~Module() = default;

  /// y = f(x); the shapes are the layer's to document.
  virtual Tensor forward(const Tensor& x) = 0;
  Tensor operator()(const Tensor& x) { return forward(x); }
  /// Layer type ("Linear").
  virtual std::string name() const = 0;
  /// Its settings, for repr() ("in=784, out=512").
  virtual std::string extra_repr() const { return ""; }
  /// The module tree, one line per module.
  std::string repr() const;

  /// Parameters of this module and its children, named by path ("0.weight", "block.1.bias").
  std::vector<std::pair<std::string, Tensor>> named_parameters() const;
  std::vector<Tensor> parameters() const;
  /// Buffers (state that is not trained, e.g. batchnorm running statistics), named by path.
  std::vector<std::pair<std::string, Tensor>> named_buffers() const;
  const std::vector<std::pair<std::string, std::shared_ptr<Module>>>& children() const {
    return children_;
  }
  /// Number of scalar parameters.
  int64_t parameter_count() const;

  /// Training mode (dropout active, batchnorm uses batch statistics); applies to children.
  void train(bool on = true);
  void eval() { train(false); }
  bool is_training() const { return training_; }

  /// Converts every floating parameter and buffer to `dtype` (parameters stay leaves).
  void to(DType dtype);
  /// Moves every parameter and buffer to `device`.
  void to(Device device);

  /// Parameters then buffers, by path.
  StateDict state_dict() const;
  /// Copies values from `state` into the parameters and buffers (converting dtype). A missing or
  /// unexpected entry (when strict), or a shape mismatch, is an Error naming the first offender.
  void load_state_dict(const StateDict& state, bool strict = true);
  /// Drops the gradient of every parameter.
  void zero_grad();

 protected:
  /// Registers a parameter member; marks it as requiring grad.
  void register_parameter(const std::string& name, Tensor* member);
  /// Registers a buffer member.
  void register_buffer(const std::string& name, Tensor* member);
  /// Registers a child module and returns it.
  template <class M>
  std::shared_ptr<M> register_module(const std::string& name, std::shared_ptr<M> child) {
    add_child(name, child);
    return child;
  }

 private:
  void add_child(const std::string& name, std::shared_ptr<Module> child);
  // Visits (path, member) for every parameter (params = true) or buffer, recursively.
  template <class F>
  void visit(bool params, const std::string& prefix, F&& f) const;

  std::vector<std::pair<std::string, Tensor*>> parameters_;
  std::vector<std::pair<std::string, Tensor*>> buffers_;
  std::vector<std::pair<std::string, std::shared_ptr<Module>>> children_;
  bool training_ = true;
};

}  // namespace exadnn::nn
