// Strategy: one way of training — one process, an MPI rank in data-parallel allreduce, parameter
// server or asynchronous RMA mode, or the worker threads of one process. The Trainer's loop asks
// it which shard of the data to read, how to run an epoch and apply a step, and how to combine
// the epoch's figures; only the root rank evaluates and writes files. The base class is the
// single-process strategy; strategies.h names the others.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "exadnn/data/data_loader.h"
#include "exadnn/nn/module.h"
#include "exadnn/optim/grad_scaler.h"
#include "exadnn/optim/optimizer.h"
#include "exadnn/train/losses.h"

namespace exadnn::train {

/// Builds the optimizer for a list of parameters (the run's optimizer).
using MakeOptimizer = std::function<std::unique_ptr<optim::Optimizer>(std::vector<Tensor>)>;

/// What a strategy may need besides the model to train it its way.
struct TrainingRecipe {
  MakeOptimizer make_optimizer;
  /// A new model of the same architecture (the threaded strategies' replicas).
  std::function<std::shared_ptr<nn::Module>()> make_model;
  /// One batch's loss: the forward pass under the run's precision and the loss function; a 0-d
  /// tensor (the threaded strategies call it on their worker threads).
  std::function<Tensor(nn::Module&, const data::Batch&)> batch_loss;
};

/// One epoch's figures: this rank's, or (after Strategy::combine) summed over the ranks that
/// train.
struct EpochTotals {
  double loss_sum = 0;  ///< sum of batch losses
  int64_t batches = 0;
  int64_t examples = 0;
  double seconds = 0;  ///< the slowest rank's
};

/// The Trainer's work on one batch (forward, backward, step()); returns the batch's loss.
using BatchStep = std::function<double(const data::Batch&)>;

class Strategy {
 public:
  virtual ~Strategy() = default;
  /// Ranks in the job (1 for a single process).
  virtual int ranks() const { return 1; }
  /// Processes of the job on this machine, which share its memory (the memory estimate gives
  /// each its share); 1 for a single process and for threads.
  virtual int processes_on_node() const { return 1; }
  /// The rank that prints, evaluates and writes checkpoints and metrics.
  virtual bool is_root() const { return true; }
  /// False on parameter-server ranks, which serve() instead of training.
  virtual bool trains() const { return true; }
  /// Restricts the loader to this rank's shard of every epoch.
  virtual data::DataLoaderOptions shard(data::DataLoaderOptions options) const { return options; }
  /// The shape of one training example (no batch axis) and the batch size, once the data is
  /// loaded and before make_optimizer(): a strategy that sizes its split by timing the model on a
  /// batch (parallel.balance: measured) keeps them.
  virtual void see_examples(const Shape& /*example*/, int64_t /*batch_size*/) {}
  /// Makes the optimizer the Trainer steps, once the model is in place (before a resume and
  /// attach()): by default `make(model->parameters())`, one optimizer over the whole model; a
  /// strategy that keeps the optimizer state elsewhere (parallel.shard: a block per rank) or
  /// trains a part of the model (parallel.pipeline: this rank's stage) makes its own.
  virtual std::unique_ptr<optim::Optimizer> make_optimizer(const std::shared_ptr<nn::Module>& model,
                                                           const MakeOptimizer& make) {
    return make(model->parameters());
  }
  /// Whether forward_backward() runs each batch's forward and backward passes (a pipeline,
  /// whose stages each run a part of the model) instead of the Trainer.
  virtual bool runs_forward_backward() const { return false; }
  /// The forward and backward passes of one batch (collective), the gradients left in the
  /// parameters the optimizer steps; returns the batch's loss.
  virtual double forward_backward(const data::Batch& /*batch*/, const LossFunction& /*loss*/) {
    return 0;
  }
  /// A resumed run: loads a checkpoint's optimizer state (the one-process layout) into `opt`,
  /// the optimizer make_optimizer() made; an Error says what does not fit.
  virtual void load_optimizer_state(optim::Optimizer& opt, const StateDict& state) {
    opt.load_state_dict(state);
  }
  /// Called once the model (and a resumed state) is in place, before the first step.
  virtual void attach(const std::shared_ptr<nn::Module>& /*model*/, const TrainingRecipe&) {}
  /// Runs epoch `epoch` (0-based) of this rank: by default `step` on each batch of
  /// for_each_batch(), adding up what it returns; the threaded strategies run their workers.
  virtual EpochTotals train_epoch(data::DataLoader& loader, int64_t epoch, const BatchStep& step);
  /// Hands this rank's batches of epoch `epoch` to `use`: every batch of the loader's shard, in
  /// order; async_rma ranks claim batches first come, first served (a fast rank takes more) and
  /// build only those.
  virtual void for_each_batch(data::DataLoader& loader, int64_t epoch,
                              const std::function<void(const data::Batch&)>& use);
  /// Applies this step's gradients (the optimizer's step, or the parameter server's), through
  /// the loss scaler (a pass-through when it is off); false: the scaler skipped the step.
  virtual bool step(optim::Optimizer& opt, optim::GradScaler& scaler) { return scaler.step(opt); }
  /// Whether `flag` is true on any rank that trains (the loss scaler's overflow verdict, so
  /// every rank skips the same steps); one process: `flag`.
  virtual bool any_rank(bool flag) { return flag; }
  /// Parameter-server ranks: apply the workers' updates until they finish.
  virtual void serve() {}
  /// The optimizer state a checkpoint keeps, on the root; every rank that trains calls it at the
  /// same point of each epoch: this rank's optimizer's, or the parameter servers' (gathered).
  virtual StateDict optimizer_state(const optim::Optimizer& opt) { return opt.state_dict(); }
  /// A resumed run, every rank, after attach(): hands the checkpoint's optimizer state (already
  /// in this rank's optimizer) to the optimizers that apply the steps if they live elsewhere
  /// (the parameter servers').
  virtual void restore_optimizer_state(const StateDict& /*state*/) {}
  /// Combines an epoch's figures over the ranks that train.
  virtual EpochTotals combine(const EpochTotals& mine) { return mine; }
  /// After the last epoch (workers tell the servers they are done).
  virtual void end_training() {}
  /// What a progress header says about the job ("" for one process).
  virtual std::string describe() const { return ""; }
};

}  // namespace exadnn::train
