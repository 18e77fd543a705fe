// StepLR: multiplies the learning rate by gamma every step_size epochs (torch StepLR).
#pragma once

#include <cstdint>

#include "exadnn/optim/lr_scheduler.h"

namespace exadnn::optim {

/// lr = base_lr · gamma^floor(epoch / step_size).
class StepLR : public LRScheduler {
 public:
  /// step_size >= 1; gamma is the factor applied at each multiple of step_size.
  StepLR(Optimizer& optimizer, int64_t step_size, double gamma = 0.1);
  /// Epochs between decays.
  int64_t step_size() const { return step_size_; }
  /// Factor applied at each decay.
  double gamma() const { return gamma_; }

 protected:
  double chained_lr() const override;
  double closed_form_lr(int64_t epoch) const override;

 private:
  int64_t step_size_;
  double gamma_;
};

}  // namespace exadnn::optim
