// Distribution: how one training process relates to the others of its job — the single-process
// case, or an MPI rank in allreduce, parameter-server or asynchronous RMA mode. The training loop
// asks it which shard of the data to read, how to apply a step, and how to combine the epoch's
// figures; only the root rank prints and writes files.
#pragma once

#include <functional>
#include <memory>

#include "config.h"
#include "exadnn/data/data_loader.h"
#include "exadnn/nn/module.h"
#include "exadnn/optim/grad_scaler.h"
#include "exadnn/optim/optimizer.h"

namespace exadnn::cli {

/// Builds the optimizer for a list of parameters (the config's optimizer).
using MakeOptimizer = std::function<std::unique_ptr<optim::Optimizer>(std::vector<Tensor>)>;

/// One epoch's figures, summed over the ranks that train.
struct EpochTotals {
  double loss_sum = 0;  ///< sum of batch losses
  int64_t batches = 0;
  int64_t examples = 0;
  double seconds = 0;  ///< the slowest rank's
};

class Distribution {
 public:
  virtual ~Distribution() = default;
  /// Ranks in the job (1 for a single process).
  virtual int ranks() const { return 1; }
  /// The rank that prints, evaluates and writes checkpoints and metrics.
  virtual bool is_root() const { return true; }
  /// False on parameter-server ranks, which serve() instead of training.
  virtual bool trains() const { return true; }
  /// Restricts the loader to this rank's shard of every epoch.
  virtual data::DataLoaderOptions shard(data::DataLoaderOptions options) const { return options; }
  /// Called once the model (and a resumed state) is in place, before the first step.
  virtual void attach(nn::Module&, const MakeOptimizer&) {}
  /// Runs `train_step` on this rank's batches of epoch `epoch` (the loader's next): every batch
  /// of the loader's shard, in order; async_rma ranks claim batches first come, first served (a
  /// fast rank takes more) and build only those.
  virtual void for_each_batch(data::DataLoader& loader, int64_t /*epoch*/,
                              const std::function<void(const data::Batch&)>& train_step) {
    for (const data::Batch& batch : loader) train_step(batch);
  }
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
  /// What the progress header says about the job ("" for one process).
  virtual std::string describe() const { return ""; }
};

/// The single-process Distribution, or an MPI one when `spec` asks for it (an Error if exadnn
/// was built without MPI).
std::unique_ptr<Distribution> make_distribution(const MpiSpec& spec);

/// Ends every rank of an MPI job with `message` if this process is one (of several) and returns
/// false otherwise; the command line calls it on errors so no rank is left hanging.
bool abort_job(const std::string& message, int code);

}  // namespace exadnn::cli
