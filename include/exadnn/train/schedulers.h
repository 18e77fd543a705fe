// The learning-rate schedules a training config names ("scheduler: {name: cosine}"), as a
// registry users extend. A schedule is stepped once at the end of each epoch; "none" (no
// schedule) is not an entry.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <set>
#include <string>

#include "exadnn/optim/lr_scheduler.h"
#include "exadnn/train/registry.h"

namespace exadnn::train {

/// A schedule's settings as a config gives them (each kind reads the ones it declares).
struct SchedulerSpec {
  std::string name = "none";
  int64_t t_max = 0;      ///< cosine: epochs from lr down to eta_min (0: all the epochs)
  double eta_min = 0.0;   ///< cosine: the lowest rate
  int64_t step_size = 1;  ///< step: epochs between decays
  double gamma = 0.1;     ///< step: the factor of each decay
  /// cosine: the epochs from lr down to eta_min in a run of `epochs` epochs.
  int64_t cosine_epochs(int64_t epochs) const { return t_max > 0 ? t_max : epochs; }
};

struct SchedulerKind {
  std::set<std::string> settings;  ///< the SchedulerSpec fields it reads (others are refused)
  std::function<std::unique_ptr<optim::LRScheduler>(optim::Optimizer&, const SchedulerSpec&,
                                                    int64_t epochs)>
      make;
  /// One line for the run's header, from the optimizer's first rate `lr`.
  std::function<std::string(const SchedulerSpec&, double lr, int64_t epochs)> describe;
};

/// cosine (CosineAnnealingLR), step (StepLR), and every kind added with
/// schedulers().add(name, kind).
Registry<SchedulerKind>& schedulers();

}  // namespace exadnn::train
