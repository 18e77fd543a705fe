#include "exadnn/autograd/grad_mode.h"

namespace exadnn {

namespace {
thread_local bool t_grad_enabled = true;
}  // namespace

bool GradMode::is_enabled() noexcept {
  return t_grad_enabled;
}
void GradMode::set_enabled(bool enabled) noexcept {
  t_grad_enabled = enabled;
}

}  // namespace exadnn
