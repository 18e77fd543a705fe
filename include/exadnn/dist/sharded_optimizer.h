// ShardedOptimizer: data-parallel training whose optimizer state is split over the ranks (ZeRO
// stage 1). Every rank holds the whole model and computes gradients on its part of the batch;
// step() then
//   1. lays the gradients end to end in one flat buffer [N] (padded to a multiple of P) and
//      reduce-scatters it: rank r receives the average over the ranks of block r, [N/P];
//   2. runs an ordinary optimizer (any element-wise one: SGD, Adam, AdamW, RMSprop, Adagrad) on its
//      block of the flattened parameters, so its state buffers hold N/P values instead of N;
//   3. all-gathers the updated blocks and copies them back into the parameters.
// The result equals one process stepping the same optimizer on the whole batch (to round-off).
//
// Checkpoints are in the one-process layout: state_dict() gathers the blocks into the entries a
// one-process optimizer of the same kind writes ("step", "lr", "i.step", "i.<buffer>"), and
// load_state_dict() takes such a state (from either kind) and keeps this rank's block; so a
// checkpoint moves between one process, data parallel and sharded runs.
//
// Parameters must be f32 (16-bit models train through the optimizer's f32 masters on one process;
// sharding them is not done yet). Parameters are broadcast from rank 0 when it is made.
#pragma once

#include <functional>
#include <memory>
#include <vector>

#include "exadnn/core/state_dict.h"
#include "exadnn/dist/communicator.h"
#include "exadnn/dist/flat_shards.h"
#include "exadnn/optim/optimizer.h"

namespace exadnn::dist {

/// Makes the optimizer that updates one rank's block (a single 1-D f32 parameter).
using OptimizerFactory =
    std::function<std::unique_ptr<optim::Optimizer>(std::vector<Tensor> params)>;

class ShardedOptimizer {
 public:
  /// `params`: every parameter of the model, in the same order on every rank (collective).
  ShardedOptimizer(std::vector<Tensor> params, Communicator comm, const OptimizerFactory& make);

  /// Averages the gradients over the ranks, updates this rank's block, gathers the parameters.
  /// Collective. Parameters without a gradient on every rank count as a zero gradient. The block
  /// is read from the parameters as they are, so weights loaded into the model after this
  /// optimizer was made (a resumed checkpoint) are the ones updated.
  void step();
  /// Drops the gradients of every parameter.
  void zero_grad();

  double lr() const { return inner_->lr(); }
  void set_lr(double lr) { inner_->set_lr(lr); }
  int64_t step_count() const { return inner_->step_count(); }

  /// The one-process layout of the optimizer's state (collective).
  StateDict state_dict() const;
  /// Restores a one-process-layout state; an entry that is missing or of the wrong shape is an
  /// Error naming it, raised before anything changes.
  void load_state_dict(const StateDict& state);

  /// Values this rank's optimizer keeps per state buffer: ⌈N / P⌉ of the model's N.
  int64_t shard_numel() const { return shard_.numel(); }
  /// N, the model's parameter count.
  int64_t total_numel() const;
  /// Seconds spent in step()'s reduce-scatter and all-gather so far.
  double communication_seconds() const { return comm_seconds_; }
  /// The optimizer that updates this rank's block.
  const optim::Optimizer& inner() const { return *inner_; }

 private:
  // Copies this rank's block [S] of the flattened parameters into shard_.
  void read_block();
  // Copies a padded flat [P·S] tensor back into the parameters.
  void scatter_into_params(const Tensor& flat);

  std::vector<Tensor> params_;
  Communicator comm_;
  FlatShards layout_;  // the parameters end to end in P blocks
  Tensor shard_;       // [S]: this rank's block of the flattened parameters (the inner optimizer's)
  std::unique_ptr<optim::Optimizer> inner_;
  double comm_seconds_ = 0;
};

}  // namespace exadnn::dist
