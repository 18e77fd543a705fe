// The shared-memory modes of the config's `distributed:` section (asynchronous SGD on the threads
// of one node): `distributed: {mode: hogwild | threads_locked | threads_sync, threads: T,
// accumulate: k}`. The MPI modes of the same section are parsed elsewhere.
#pragma once

#include <functional>
#include <memory>
#include <string>

#include "exadnn/async/async_trainer.h"

namespace YAML {
class Node;
}

namespace exadnn::cli {

/// Shared-memory async SGD settings (enabled when `distributed.mode` is one of hogwild_modes()).
struct HogwildSpec {
  bool enabled = false;
  std::string mode = "hogwild";  ///< hogwild, threads_locked (mutex-guarded), threads_sync
  int threads = 2;               ///< worker threads
  int accumulate = 1;            ///< local steps per publish (hogwild, threads_locked)
};

/// Whether `mode` names a shared-memory mode ("hogwild", "threads_locked", "threads_sync").
bool is_hogwild_mode(const std::string& mode);

/// Reads the `distributed` mapping into `spec` when its mode is a shared-memory one (else leaves
/// `spec` disabled and returns false). Each problem goes to `report` with the node it is about.
bool parse_hogwild(
    const YAML::Node& distributed, HogwildSpec& spec,
    const std::function<void(const YAML::Node& at, const std::string& message)>& report);

/// The AsyncTrainer a spec asks for, over `model` (whose parameters it moves into its slab).
std::unique_ptr<async::AsyncTrainer> make_hogwild_trainer(const HogwildSpec& spec,
                                                          std::shared_ptr<nn::Module> model,
                                                          async::ModelFactory make_replica,
                                                          async::OptimizerFactory make_optimizer,
                                                          async::LossFunction loss);

}  // namespace exadnn::cli
