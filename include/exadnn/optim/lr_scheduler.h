// LRScheduler: the base of learning-rate schedules. A scheduler sets its optimizer's learning
// rate each time step() is called — once per epoch or once per iteration, as the caller chooses.
//
// Schedules follow PyTorch's (torch.optim.lr_scheduler): making a scheduler performs its initial
// step (epoch 0), and each step() computes the new rate from the optimizer's current one (the
// "chainable" form), so the rates agree with PyTorch's to the last bit of their arithmetic.
#pragma once

#include <cstdint>
#include <string>

#include "exadnn/core/state_dict.h"
#include "exadnn/optim/optimizer.h"

namespace exadnn::optim {

/// Base of the learning-rate schedulers.
class LRScheduler {
 public:
  virtual ~LRScheduler() = default;
  LRScheduler(const LRScheduler&) = delete;
  LRScheduler& operator=(const LRScheduler&) = delete;

  /// Advances the schedule by one epoch (or iteration) and sets the optimizer's learning rate.
  virtual void step();
  /// Epochs (or iterations) stepped since the start; 0 right after construction.
  int64_t last_epoch() const { return last_epoch_; }
  /// The learning rate this scheduler last set.
  double last_lr() const { return last_lr_; }
  /// The optimizer's initial learning rate, which the schedule scales.
  double base_lr() const { return base_lr_; }
  /// The optimizer whose learning rate is scheduled.
  Optimizer& optimizer() const { return optimizer_; }

  /// "last_epoch" (0-d i64), "base_lr" and "last_lr" (0-d f64).
  virtual StateDict state_dict() const;
  /// Restores a state_dict() of the same kind of scheduler; entries are checked first and a
  /// missing, unexpected or malformed one is an Error naming it. The optimizer's learning rate is
  /// part of the optimizer's own state.
  void load_state_dict(const StateDict& state);

 protected:
  /// `name` prefixes error messages ("optim::StepLR").
  LRScheduler(Optimizer& optimizer, const char* name);
  /// The initial step (to epoch 0); each concrete scheduler calls it at the end of its
  /// constructor.
  void initial_step();
  /// The rate for last_epoch() from the optimizer's current rate (the chainable form).
  virtual double chained_lr() const = 0;
  /// The rate at `epoch` from base_lr() alone (the closed form).
  virtual double closed_form_lr(int64_t epoch) const = 0;
  /// Jumps to `epoch` and sets the closed-form rate there (used when a schedule takes over).
  void jump_to(int64_t epoch);
  /// Sets the optimizer's rate and remembers it.
  void apply(double lr);
  /// Throws unless `state` holds exactly this scheduler's entries (names reported with `prefix`).
  virtual void check_state(const StateDict& state, const std::string& prefix) const;
  /// Takes the values of a checked state.
  virtual void restore_state(const StateDict& state);

  const char* where() const { return name_; }

  int64_t last_epoch_ = -1;

 private:
  Optimizer& optimizer_;
  const char* name_;
  double base_lr_;
  double last_lr_;

  friend class LinearWarmup;
};

}  // namespace exadnn::optim
