// The threaded strategies (hogwild, threads_locked, threads_sync): the epochs run on the worker
// threads of an async::AsyncTrainer; internal to the train library (strategies.cpp names them).
#pragma once

#include <memory>

#include "exadnn/async/async_trainer.h"
#include "exadnn/train/strategies.h"

namespace exadnn::train::internal {

/// `mode`: how the workers share the parameters (the strategy's name picks it).
std::unique_ptr<Strategy> make_threaded_strategy(const HogwildSpec& spec, async::AsyncMode mode);

}  // namespace exadnn::train::internal
