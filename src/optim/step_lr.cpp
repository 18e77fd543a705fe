// StepLR: decay by gamma every step_size epochs (torch StepLR's chainable and closed forms).
#include "exadnn/optim/step_lr.h"

#include <cmath>

namespace exadnn::optim {

StepLR::StepLR(Optimizer& optimizer, int64_t step_size, double gamma)
    : LRScheduler(optimizer, "optim::StepLR"), step_size_(step_size), gamma_(gamma) {
  EXADNN_CHECK(step_size >= 1, where(), "invalid step_size ", step_size, " (must be >= 1)");
  EXADNN_CHECK(std::isfinite(gamma) && gamma >= 0.0, where(), "invalid gamma ", gamma,
               " (must be >= 0)");
  initial_step();
}

double StepLR::chained_lr() const {
  const double lr = optimizer().lr();
  if (last_epoch_ == 0 || last_epoch_ % step_size_ != 0) return lr;
  return lr * gamma_;
}

double StepLR::closed_form_lr(int64_t epoch) const {
  return base_lr() * std::pow(gamma_, static_cast<double>(epoch / step_size_));
}

}  // namespace exadnn::optim
