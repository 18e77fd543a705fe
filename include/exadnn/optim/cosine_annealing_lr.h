// CosineAnnealingLR: the learning rate follows half a cosine from base_lr down to eta_min over
// T_max epochs, then back up (periodically), as torch CosineAnnealingLR.
#pragma once

#include <cstdint>

#include "exadnn/optim/lr_scheduler.h"

namespace exadnn::optim {

/// lr = eta_min + (base_lr - eta_min)·(1 + cos(π·epoch / T_max)) / 2 (computed recursively).
class CosineAnnealingLR : public LRScheduler {
 public:
  /// t_max >= 1 epochs to reach eta_min.
  CosineAnnealingLR(Optimizer& optimizer, int64_t t_max, double eta_min = 0.0);
  /// Epochs from base_lr down to eta_min.
  int64_t t_max() const { return t_max_; }
  /// The lowest learning rate.
  double eta_min() const { return eta_min_; }

 protected:
  double chained_lr() const override;
  double closed_form_lr(int64_t epoch) const override;

 private:
  int64_t t_max_;
  double eta_min_;
};

}  // namespace exadnn::optim
