// Dynamic loss scaling for 16-bit training (the semantics of torch.cuda.amp.GradScaler).
#pragma once

#include <cstdint>
#include <functional>

#include "exadnn/core/state_dict.h"
#include "exadnn/core/tensor.h"
#include "exadnn/optim/optimizer.h"

namespace exadnn::optim {

/// Options of GradScaler (PyTorch's defaults).
class GradScalerOptions {
 public:
  /// Scale of the first step (> 0).
  GradScalerOptions& init_scale(double v) {
    init_scale_ = v;
    return *this;
  }
  /// Factor applied after growth_interval clean steps in a row (> 1).
  GradScalerOptions& growth_factor(double v) {
    growth_factor_ = v;
    return *this;
  }
  /// Factor applied after a step whose gradients held inf or NaN (in (0, 1)).
  GradScalerOptions& backoff_factor(double v) {
    backoff_factor_ = v;
    return *this;
  }
  /// Clean steps in a row before the scale grows (>= 1).
  GradScalerOptions& growth_interval(int64_t v) {
    growth_interval_ = v;
    return *this;
  }
  /// A disabled scaler passes losses and steps through unchanged.
  GradScalerOptions& enabled(bool v) {
    enabled_ = v;
    return *this;
  }

  double init_scale() const { return init_scale_; }
  double growth_factor() const { return growth_factor_; }
  double backoff_factor() const { return backoff_factor_; }
  int64_t growth_interval() const { return growth_interval_; }
  bool enabled() const { return enabled_; }
  /// Data parallel: combines this process's "the gradients overflowed" with the other ranks'
  /// (true if any rank's did), so every rank skips the same steps and keeps the same scale.
  /// Unset: this process decides alone.
  GradScalerOptions& overflow_agreement(std::function<bool(bool)> any_rank) {
    overflow_agreement_ = std::move(any_rank);
    return *this;
  }
  const std::function<bool(bool)>& overflow_agreement() const { return overflow_agreement_; }

 private:
  std::function<bool(bool)> overflow_agreement_;
  double init_scale_ = 65536.0;  // 2^16
  double growth_factor_ = 2.0;
  double backoff_factor_ = 0.5;
  int64_t growth_interval_ = 2000;
  bool enabled_ = true;
};

/// Multiplies the loss by a scale so that small gradients survive 16-bit arithmetic, divides the
/// gradients by it before the optimizer steps, skips steps whose gradients overflowed, and adapts
/// the scale. A step:
///   scaler.scale(loss) → backward → [scaler.unscale(opt); clip…] → scaler.step(opt) →
///   scaler.update()
class GradScaler {
 public:
  explicit GradScaler(const GradScalerOptions& options = GradScalerOptions());

  /// loss · scale (recorded, so backward sees scaled gradients); loss itself when disabled.
  Tensor scale(const Tensor& loss) const;
  /// Divides the gradients of opt's parameters by the scale (16-bit gradients are replaced by
  /// f32 ones, so values below 16-bit range survive) and notes whether any holds inf or NaN.
  /// At most once between two update() calls (an Error otherwise); step() calls it if needed.
  void unscale(Optimizer& opt);
  /// opt.step() unless the unscaled gradients held inf or NaN; returns whether it stepped.
  bool step(Optimizer& opt);
  /// Ends the step: after inf/NaN the scale is multiplied by backoff_factor and the count of
  /// clean steps restarts; else the count grows and, at growth_interval, the scale is multiplied
  /// by growth_factor.
  void update();

  /// The current scale (1 when disabled).
  double get_scale() const { return options_.enabled() ? scale_ : 1.0; }
  /// Clean steps since the scale last changed.
  int64_t growth_tracker() const { return growth_tracker_; }
  /// Whether the gradients unscaled in this step held inf or NaN.
  bool found_inf() const { return found_inf_; }
  const GradScalerOptions& options() const { return options_; }

  /// "scale" (0-d f64) and "growth_tracker" (0-d i64).
  StateDict state_dict() const;
  /// Restores a state_dict(); a missing entry or a non-positive scale is an Error.
  void load_state_dict(const StateDict& state);

 private:
  GradScalerOptions options_;
  double scale_;
  int64_t growth_tracker_ = 0;
  bool unscaled_ = false;
  bool found_inf_ = false;
};

}  // namespace exadnn::optim
