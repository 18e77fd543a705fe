// nn::Module: a layer or a model — named parameters and buffers, child modules, train/eval mode,
// dtype/device moves and state dicts; nn::MultiInputModule: the base of modules whose forward
// takes several tensors (a U-Net skip block's (x, skip), a surrogate's (descriptors,
// occupations)).
#pragma once

#include <memory>
#include <string>
#include <type_traits>
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

  // --- running the module ------------------------------------------------------------------
  // A module takes the tensors input_names() lists: one ("x") for ordinary layers, several for
  // modules derived from MultiInputModule (a skip block's (x, skip), a surrogate's (descriptors,
  // occupations)). Call it as module(x), module(x, skip, ...) or module(inputs); all three check
  // the count and name the module when it is wrong.

  /// y = f(x) for a module of one input; the shapes are the layer's to document.
  virtual Tensor forward(const Tensor& x) = 0;
  /// y = f(inputs[0], inputs[1], ...): checks that there are input_names().size() defined
  /// tensors (an Error naming the module and its inputs otherwise), then runs forward(x) for a
  /// module of one input or forward_inputs(inputs) for one of several.
  Tensor forward(const std::vector<Tensor>& inputs);
  /// The names of the inputs forward takes, in order; the default is {"x"}.
  virtual std::vector<std::string> input_names() const { return {"x"}; }

  Tensor operator()(const Tensor& x) { return forward(x); }
  /// y = f(x0, x1, ...) for a module of several inputs: module(x, skip).
  template <class... Rest>
  Tensor operator()(const Tensor& x0, const Tensor& x1, const Rest&... rest) {
    static_assert((std::is_same_v<Rest, Tensor> && ...), "module(x0, x1, ...) takes Tensors");
    return forward(std::vector<Tensor>{x0, x1, rest...});
  }
  Tensor operator()(const std::vector<Tensor>& inputs) { return forward(inputs); }

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
  /// Rebinds the parameter members, in parameters() order, to `values`: tensors of the members'
  /// shapes, used as they are (views of one gathered buffer, leaves or not), or undefined tensors,
  /// which release the members' memory. For code that keeps the parameters elsewhere between
  /// uses (dist::FullyShardedModel, ZeRO stage 3); a module whose parameters are released must
  /// not run, save or move before they are bound again. A wrong count or shape is an Error.
  void bind_parameters(const std::vector<Tensor>& values);

 protected:
  /// Runs a module of several inputs: `inputs` holds input_names().size() (≥ 2) defined tensors,
  /// checked by forward(inputs). Modules of several inputs override it (see MultiInputModule);
  /// the default is an Error saying the module does not take several inputs.
  virtual Tensor forward_inputs(const std::vector<Tensor>& inputs);

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

/// A module of a fixed number (≥ 2) of named inputs. Subclasses pass the names to the
/// constructor and implement forward_inputs; callers write module(x, skip) or
/// module(std::vector<Tensor>{x, skip}). A wrong count, an undefined input, or a call with one
/// tensor (module(x), or as a middle layer of a Sequential) is an Error naming the module and
/// its inputs. A Sequential may start with such a module: its inputs are then the Sequential's.
///
///   class SkipBlock : public nn::MultiInputModule {
///    public:
///     SkipBlock() : MultiInputModule({"x", "skip"}) {}
///    protected:
///     // x: [N, C], skip: [N, C] -> [N, C]
///     Tensor forward_inputs(const std::vector<Tensor>& in) override { return in[0] + in[1]; }
///   };
class MultiInputModule : public Module {
 public:
  /// `input_names` fixes how many tensors forward takes (at least two) and names them in errors.
  explicit MultiInputModule(std::vector<std::string> input_names);

  using Module::forward;
  /// Always an Error: the module takes input_names().size() tensors, not one.
  Tensor forward(const Tensor& x) final;
  std::vector<std::string> input_names() const final { return input_names_; }

 protected:
  /// inputs: input_names().size() defined tensors, in the order of the names.
  Tensor forward_inputs(const std::vector<Tensor>& inputs) override = 0;

 private:
  std::vector<std::string> input_names_;
};

}  // namespace exadnn::nn
