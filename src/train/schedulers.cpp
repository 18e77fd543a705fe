// The built-in learning-rate schedules of the config's `scheduler` section.
#include "exadnn/train/schedulers.h"

#include "exadnn/optim/cosine_annealing_lr.h"
#include "exadnn/optim/step_lr.h"

namespace exadnn::train {

namespace {

Registry<SchedulerKind>* make_builtin() {
  auto* r = new Registry<SchedulerKind>("scheduler");
  r->add("cosine", {{"t_max", "eta_min"},
                    [](optim::Optimizer& opt, const SchedulerSpec& s, int64_t epochs) {
                      return std::make_unique<optim::CosineAnnealingLR>(
                          opt, s.cosine_epochs(epochs), s.eta_min);
                    },
                    [](const SchedulerSpec& s, double lr, int64_t epochs) {
                      return detail::cat("cosine from ", lr, " to ", s.eta_min, " over ",
                                         s.cosine_epochs(epochs), " epochs");
                    }});
  r->add("step", {{"step_size", "gamma"},
                  [](optim::Optimizer& opt, const SchedulerSpec& s, int64_t) {
                    return std::make_unique<optim::StepLR>(opt, s.step_size, s.gamma);
                  },
                  [](const SchedulerSpec& s, double lr, int64_t) {
                    return detail::cat(lr, ", times ", s.gamma, " every ", s.step_size, " epochs");
                  }});
  return r;
}

}  // namespace

Registry<SchedulerKind>& schedulers() {
  static Registry<SchedulerKind>* table = make_builtin();  // never destroyed: used at exit too
  return *table;
}

}  // namespace exadnn::train
