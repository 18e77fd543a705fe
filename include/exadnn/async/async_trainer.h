// AsyncTrainer: SGD across the threads of one node over one shared parameter slab.
//
//   auto model = make_mlp();                       // the shared model (its weights are the slab)
//   async::AsyncTrainer trainer(model, make_mlp,   // factory: one replica per worker thread
//       [](std::vector<Tensor> p) { return std::make_unique<optim::SGD>(p, optim::SGDOptions(0.1));
//       },
//       [](nn::Module& m, const data::Batch& b) { return nn::cross_entropy(m(b.inputs), b.targets);
//       }, async::AsyncOptions().mode(async::AsyncMode::hogwild).threads(4).accumulate(1));
//   data::DataLoader loader(train_set, data::DataLoaderOptions().batch_size(64).shuffle(true));
//   for (int e = 0; e < 3; ++e) async::EpochStats s = trainer.train_epoch(loader, e);
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

#include "exadnn/async/param_slab.h"
#include "exadnn/core/tensor.h"
#include "exadnn/data/data_loader.h"
#include "exadnn/nn/module.h"
#include "exadnn/optim/optimizer.h"

namespace exadnn::async {

/// How workers combine their work.
enum class AsyncMode {
  /// Lock-free (Hogwild): each worker reads the shared weights, takes `accumulate` optimizer
  /// steps on its replica and publishes the change with relaxed atomics, never waiting.
  /// accumulate > 1 is HogBatch-style: fewer reads and writes of the shared slab.
  hogwild,
  /// Like hogwild, but publishing holds one mutex (the baseline lock-free updates are measured
  /// against).
  locked,
  /// Synchronous: each round every worker computes a gradient at the same weights, the
  /// gradients are averaged behind a barrier and one optimizer step is applied (sliced across
  /// the workers). Equals serial SGD with T times the batch, up to summation order.
  synchronous,
};
/// "hogwild", "locked", "synchronous".
const char* async_mode_name(AsyncMode mode) noexcept;
/// Parses async_mode_name's names; an Error lists them otherwise.
AsyncMode parse_async_mode(const std::string& name);

/// Settings of an AsyncTrainer (chained setters).
class AsyncOptions {
 public:
  /// Combination scheme (default hogwild).
  AsyncOptions& mode(AsyncMode m) {
    mode_ = m;
    return *this;
  }
  /// Worker threads T >= 1 (default 2).
  AsyncOptions& threads(int t) {
    threads_ = t;
    return *this;
  }
  /// Local steps per publish, k >= 1 (hogwild and locked only; default 1).
  AsyncOptions& accumulate(int k) {
    accumulate_ = k;
    return *this;
  }
  /// OpenMP threads inside each worker's ops; 0 (default): the caller's count divided by T.
  AsyncOptions& intra_op_threads(int n) {
    intra_op_threads_ = n;
    return *this;
  }
  /// Record each batch's loss with its time (EpochStats::trace; default off).
  AsyncOptions& record_trace(bool on) {
    record_trace_ = on;
    return *this;
  }

  AsyncMode mode() const { return mode_; }
  int threads() const { return threads_; }
  int accumulate() const { return accumulate_; }
  int intra_op_threads() const { return intra_op_threads_; }
  bool record_trace() const { return record_trace_; }

 private:
  AsyncMode mode_ = AsyncMode::hogwild;
  int threads_ = 2;
  int accumulate_ = 1;
  int intra_op_threads_ = 0;
  bool record_trace_ = false;
};

/// One batch's training loss, when and by whom it was computed.
struct TracePoint {
  double seconds;   ///< since the epoch started
  double loss;      ///< the batch's loss
  int64_t samples;  ///< samples of the epoch finished by all workers when it was recorded
  int worker;
};

/// What one epoch did.
struct EpochStats {
  int64_t samples = 0;
  int64_t batches = 0;
  /// Changes written to the shared parameters (hogwild/locked: publishes; synchronous: rounds).
  int64_t updates = 0;
  /// Mean training loss over the epoch's samples.
  double loss = 0.0;
  double seconds = 0.0;
  /// Sorted by time (empty unless AsyncOptions::record_trace).
  std::vector<TracePoint> trace;
};

/// Makes a fresh model of the same architecture (called once per worker).
using ModelFactory = std::function<std::shared_ptr<nn::Module>()>;
/// Makes an optimizer over the given parameters (called per worker, and per slice of the shared
/// slab in synchronous mode; elementwise optimizers make slices exact).
using OptimizerFactory =
    std::function<std::unique_ptr<optim::Optimizer>(std::vector<Tensor> params)>;
/// The scalar loss of `model` on `batch` (the graph to differentiate).
using LossFunction = std::function<Tensor(nn::Module& model, const data::Batch& batch)>;

/// Trains one shared model with T worker threads.
///
/// The shared model's parameters are moved into a ParameterSlab; they remain the model's own
/// tensors, so evaluating or checkpointing `model` between epochs sees the trained weights. Each
/// worker has its own replica (activations, gradients, optimizer state such as momentum) and
/// draws the epoch's batches from one counter, so every batch is used once per epoch. With one
/// thread every mode reproduces serial training (the same optimizer over the same DataLoader
/// batches) bit for bit. Parameters must be f32 on the host. Buffers (batch-norm statistics)
/// stay per replica; worker 0's are copied into the shared model after each epoch.
class AsyncTrainer {
 public:
  AsyncTrainer(std::shared_ptr<nn::Module> model, ModelFactory make_replica,
               OptimizerFactory make_optimizer, LossFunction loss, AsyncOptions options = {});
  ~AsyncTrainer();
  AsyncTrainer(const AsyncTrainer&) = delete;
  AsyncTrainer& operator=(const AsyncTrainer&) = delete;

  /// Runs epoch `epoch` of `loader` (its order and batches: DataLoader::epoch_order and
  /// DataLoader::build, in the workers). The first worker exception is rethrown after all
  /// workers have stopped.
  EpochStats train_epoch(const data::DataLoader& loader, int64_t epoch);

  nn::Module& model() const { return *model_; }
  const ParameterSlab& slab() const { return *slab_; }
  const AsyncOptions& options() const { return options_; }

 private:
  struct Worker;
  void run_hogwild(Worker& w, const data::DataLoader& loader, int64_t epoch,
                   const std::vector<int64_t>& order);
  void run_synchronous(Worker& w, const data::DataLoader& loader, int64_t epoch,
                       const std::vector<int64_t>& order);
  double train_batch(Worker& w, const data::DataLoader& loader, int64_t epoch,
                     const std::vector<int64_t>& order, int64_t batch);

  std::shared_ptr<nn::Module> model_;
  std::unique_ptr<ParameterSlab> slab_;
  LossFunction loss_;
  AsyncOptions options_;
  std::vector<std::unique_ptr<Worker>> workers_;
  struct Shared;
  std::unique_ptr<Shared> shared_;
};

}  // namespace exadnn::async
