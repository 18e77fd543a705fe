// Optimizer: the base of every optimizer — the parameters it updates, the learning rate, the step
// counts and the per-parameter state buffers, and their checkpoint form.
//
// Each parameter has its own state: a step count (how many updates it received; a parameter
// whose gradient is undefined at a step is skipped and its count does not advance) and the
// buffers its optimizer keeps for it (e.g. a momentum buffer of the parameter's shape and dtype).
// Buffers are allocated when the optimizer is made, so the state of an optimizer is fully
// determined by its parameters and options, and a checkpoint of it can be checked entry by entry.
//
// 16-bit (f16, bf16) parameters get f32 master weights: the optimizer keeps an f32 copy of each,
// applies the update (and keeps the state buffers) in f32, and rounds the result into the
// parameter, so updates far below the parameter's 16-bit resolution still accumulate.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "exadnn/core/state_dict.h"
#include "exadnn/core/tensor.h"

namespace exadnn::optim {

/// Base of the optimizers: owns the parameter list, learning rate, step counts and state buffers.
class Optimizer {
 public:
  virtual ~Optimizer() = default;
  Optimizer(const Optimizer&) = delete;
  Optimizer& operator=(const Optimizer&) = delete;

  /// Applies one update to every parameter that has a gradient (under NoGradGuard); parameters
  /// whose gradient is undefined are skipped.
  void step();
  /// Drops the gradients of all parameters (they become undefined).
  void zero_grad();

  /// The current learning rate.
  double lr() const { return lr_; }
  /// Sets the learning rate (>= 0); schedulers call this.
  void set_lr(double lr);
  /// The learning rate the optimizer was made with; schedulers scale from it.
  double initial_lr() const { return initial_lr_; }
  /// Number of step() calls so far.
  int64_t step_count() const { return step_count_; }
  /// Number of updates parameter `index` has received.
  int64_t param_step_count(size_t index) const;
  /// The parameters, in the order given to the constructor.
  const std::vector<Tensor>& params() const { return params_; }
  /// The optimizer's name ("SGD", "Adam", ...), used in error messages.
  const std::string& name() const { return name_; }

  /// A snapshot (copies) of the state: "step" and "lr" (0-d), then per parameter i "i.step"
  /// (0-d i64) and "i.<buffer>" (the parameter's shape and dtype), e.g. "0.momentum_buffer".
  StateDict state_dict() const;
  /// Restores a state_dict() of an optimizer of the same kind, options and parameter shapes.
  /// Entries are checked before anything is changed: a missing, unexpected or differently
  /// shaped entry is an Error naming the first one that does not match.
  void load_state_dict(const StateDict& state);

  /// State buffer `buffer` (e.g. "exp_avg") of parameter `index`; throws if there is none.
  const Tensor& state(size_t index, const std::string& buffer) const;

  /// Whether 16-bit parameters are updated through f32 master weights (the default). Turned
  /// off, each step widens the parameter, updates it in f32 and rounds it back ("pure" 16-bit
  /// weights: updates below half a 16-bit ulp are lost); turned on, the masters are copied from
  /// the parameters as they are now.
  void set_master_weights(bool enabled);
  bool master_weights() const { return master_weights_; }
  /// The f32 master weight of 16-bit parameter `index` (undefined for f32/f64 parameters and
  /// when master weights are off). Checkpoints hold it as "i.master".
  const Tensor& master(size_t index) const;

 protected:
  /// Checks `params` (defined, floating, leaf, requiring grad; an Error names the index of the
  /// first that is not) and the learning rate; `name` prefixes error messages.
  Optimizer(std::vector<Tensor> params, double lr, std::string name);

  /// Adds a state buffer named `buffer`, one per parameter, filled with `value`.
  void add_buffer(const std::string& buffer, double value = 0.0);
  /// Buffer number `slot` (in add_buffer order) of parameter `index`.
  const Tensor& buffer(size_t slot, size_t index) const { return buffers_[slot].per_param[index]; }

  /// Updates one parameter. `param` and `grad` are dense with the same shape and dtype (f32 for
  /// 16-bit parameters: the master weight and the widened gradient); param_step_count(index)
  /// already counts this update.
  virtual void update(size_t index, const Tensor& param, const Tensor& grad) = 0;

  /// Error location: "optim::<name>".
  std::string where() const { return "optim::" + name_; }

 private:
  struct Buffer {
    std::string name;
    std::vector<Tensor> per_param;
  };

  std::vector<Tensor> params_;
  std::string name_;
  double lr_;
  double initial_lr_;
  int64_t step_count_ = 0;
  std::vector<int64_t> param_steps_;
  std::vector<Buffer> buffers_;
  bool master_weights_ = true;
  std::vector<Tensor> masters_;  // f32 copies of 16-bit parameters (undefined for the others)
};

}  // namespace exadnn::optim
