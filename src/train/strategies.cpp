#include "exadnn/train/strategies.h"

#include "exadnn/train/config.h"
#include "threaded_strategy.h"
#ifdef EXADNN_TRAIN_WITH_MPI
#include "mpi/mpi_strategies.h"
#endif

namespace exadnn::train {
namespace {

std::unique_ptr<Strategy> make_mpi(const TrainConfig& config) {
#ifdef EXADNN_TRAIN_WITH_MPI
  return internal::make_mpi_strategy(config.mpi, config.parallel, config.model);
#else
  throw Error("train", detail::cat("distributed.mode '", config.mpi.mode,
                                   "' needs MPI, and this exadnn was built without it (install "
                                   "libopenmpi-dev and rebuild)"));
#endif
}

StrategyKind threads(async::AsyncMode mode) {
  return {StrategyKind::Family::threads, [mode](const TrainConfig& config) {
            return internal::make_threaded_strategy(config.hogwild, mode);
          }};
}

}  // namespace

Registry<StrategyKind>& strategies() {
  static Registry<StrategyKind>* table = [] {
    auto* r = new Registry<StrategyKind>("strategy");
    using Family = StrategyKind::Family;
    for (const char* name : {"allreduce", "param_server", "async_rma"})
      r->add(name, {Family::mpi, make_mpi});
    r->add("hogwild", threads(async::AsyncMode::hogwild));
    r->add("threads_locked", threads(async::AsyncMode::locked));
    r->add("threads_sync", threads(async::AsyncMode::synchronous));
    return r;
  }();
  return *table;
}

std::unique_ptr<Strategy> make_strategy(const TrainConfig& config) {
  if (config.mpi.enabled) return strategies().at(config.mpi.mode).make(config);
  if (config.hogwild.enabled) return strategies().at(config.hogwild.mode).make(config);
  return std::make_unique<Strategy>();
}

bool has_mpi_strategies() {
#ifdef EXADNN_TRAIN_WITH_MPI
  return true;
#else
  return false;
#endif
}

bool abort_job(const std::string& message, int code) {
#ifdef EXADNN_TRAIN_WITH_MPI
  return internal::abort_mpi_job(message, code);
#else
  (void)message;
  (void)code;
  return false;
#endif
}

}  // namespace exadnn::train
