// CosineAnnealingLR: torch CosineAnnealingLR's recursive (chainable) and closed forms.
#include "exadnn/optim/cosine_annealing_lr.h"

#include <cmath>
#include <numbers>

namespace exadnn::optim {

CosineAnnealingLR::CosineAnnealingLR(Optimizer& optimizer, int64_t t_max, double eta_min)
    : LRScheduler(optimizer, "optim::CosineAnnealingLR"), t_max_(t_max), eta_min_(eta_min) {
  EXADNN_CHECK(t_max >= 1, where(), "invalid T_max ", t_max, " (must be >= 1)");
  EXADNN_CHECK(std::isfinite(eta_min) && eta_min >= 0.0, where(), "invalid eta_min ", eta_min,
               " (must be >= 0)");
  initial_step();
}

double CosineAnnealingLR::chained_lr() const {
  constexpr double pi = std::numbers::pi;
  const double lr = optimizer().lr();
  const double e = static_cast<double>(last_epoch_);
  const double t = static_cast<double>(t_max_);
  if (last_epoch_ == 0) return lr;
  if ((last_epoch_ - 1 - t_max_) % (2 * t_max_) == 0)  // the rising half starts again
    return lr + (base_lr() - eta_min_) * (1 - std::cos(pi / t)) / 2;
  return (1 + std::cos(pi * e / t)) / (1 + std::cos(pi * (e - 1) / t)) * (lr - eta_min_) + eta_min_;
}

double CosineAnnealingLR::closed_form_lr(int64_t epoch) const {
  constexpr double pi = std::numbers::pi;
  return eta_min_ +
         (base_lr() - eta_min_) *
             (1 + std::cos(pi * static_cast<double>(epoch) / static_cast<double>(t_max_))) / 2;
}

}  // namespace exadnn::optim
