// FullyShardedModel: data-parallel training with the parameters, their gradients and the
// optimizer state all split over the ranks (ZeRO stage 3; ShardedOptimizer is stage 1). Every rank
// runs the whole model on its part of the batch, but keeps only a 1/P block of each layer's
// parameters between uses:
//
//   unit u = a layer of the Sequential that has parameters (a nested Sequential is opened: its
//            layers are units of their own, so a ResNet's blocks are); its parameters end to end
//            form a flat [P·S_u] (FlatShards), and rank r keeps only block r, [S_u] — a leaf tensor
//            that the optimizer updates (shards()).
//   forward:  all-gather the unit's blocks, bind the layer's parameters to views of the gathered
//             buffer, run the layer without recording a graph, release the buffer; keep only the
//             layer's input. One graph node per unit.
//   backward: all-gather again, run the layer again recording, backpropagate the output's
//             gradient through it (the input's gradient and the parameters'), reduce-scatter the
//             parameters' gradients (the average over the ranks, as data parallel) into the
//             block's gradient, release. No whole gradient outlives its layer's backward.
//
// At any time one layer's parameters, gradients and inner activations are whole; what it costs is a
// second forward of every layer with parameters (as with activation recomputation) and three
// collectives per unit and step (two all-gathers, one reduce-scatter) where data parallel needs
// one all-reduce. Layers without parameters (activations, pooling, flatten, dropout) run as
// ordinary graph ops, unsplit. Layers are run one by one, so Sequential's layer fusion does not
// apply.
//
// The result equals one process training the same model on the whole batch (to round-off) with any
// element-wise optimizer (SGD, Adam, AdamW, RMSprop, Adagrad); a test checks 1-4 ranks. Batch
// norm's running statistics are not sharded: each rank keeps its own, updated once per forward from
// its part of the batch (the recomputation restores them), as in DataParallel. A layer with
// parameters must give the same output when run again (no random masks inside it; a Dropout layer
// of its own is fine). Forward runs under the autocast the caller set, and so does the
// recomputation.
//
// Checkpoints are in the one-process layout: state_dict() gathers the model's entries, and
// optimizer_state_dict() the entries a one-process optimizer of the same kind writes; the loads
// take those layouts (from any kind of run) and keep this rank's blocks.
//
// Each rank builds the whole model first (same layers on every rank; rank 0's values are kept) and
// the model's parameters are released when this is made: the model must then run only through
// forward() (its own forward, state_dict or to() would find the parameters gone) until
// gather_into_model() makes it whole again. f32 parameters
// only. The graph of a forward refers to this object: backward before destroying it.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "exadnn/core/state_dict.h"
#include "exadnn/dist/communicator.h"
#include "exadnn/dist/flat_shards.h"
#include "exadnn/dist/sharded_optimizer.h"
#include "exadnn/nn/container.h"
#include "exadnn/optim/optimizer.h"

namespace exadnn::dist {

class FullyShardedModel {
 public:
  /// Keeps this rank's blocks of `model`'s parameters (rank 0's values), releases the rest and
  /// makes `make`'s optimizer over the blocks (collective). The model's first layer must take one
  /// input; every parameter must be f32.
  FullyShardedModel(std::shared_ptr<nn::Sequential> model, Communicator comm,
                    const OptimizerFactory& make);

  /// The model on `x` (this rank's part of the batch), one graph node per layer with parameters.
  /// Collective when recording (backward) and when not (every rank must run the same layers).
  Tensor forward(const Tensor& x);
  Tensor operator()(const Tensor& x) { return forward(x); }

  /// Updates this rank's blocks from their gradients (set by backward). Not collective.
  void step();
  /// Drops the blocks' gradients.
  void zero_grad();
  /// Training or evaluation mode of the model's layers (dropout, batch norm).
  void train(bool on = true) { model_->train(on); }
  void eval() { train(false); }

  double lr() const { return inner_->lr(); }
  void set_lr(double lr) { inner_->set_lr(lr); }
  int64_t step_count() const { return inner_->step_count(); }

  /// The model's entries (parameters then buffers, by path) in the one-process layout; rank 0's
  /// buffers (collective).
  StateDict state_dict() const;
  /// Takes a one-process-layout state of the model and keeps this rank's blocks; a missing,
  /// unexpected (when strict) or misshapen entry is an Error naming it, raised before anything
  /// changes.
  void load_state_dict(const StateDict& state, bool strict = true);
  /// Binds whole copies of every parameter (gathered) into the model, so that it runs, scores
  /// and saves as an ordinary module (collective); the next forward() releases each layer's
  /// again. Weights loaded into the model meanwhile reach the blocks only through
  /// load_state_dict(model->state_dict()).
  void gather_into_model();
  /// The one-process layout of the optimizer's state (collective).
  StateDict optimizer_state_dict() const;
  /// Restores a one-process-layout optimizer state (checked like load_state_dict).
  void load_optimizer_state_dict(const StateDict& state);

  /// This rank's block of each layer with parameters: the optimizer's parameters.
  std::vector<Tensor> shards() const;
  /// Values of parameters this rank keeps: Σ_u ⌈N_u / P⌉ of the model's N.
  int64_t shard_numel() const;
  /// N, the model's parameter count.
  int64_t total_numel() const;
  /// The most parameter values whole at once: the largest layer's.
  int64_t largest_unit_numel() const;
  /// Seconds spent in the all-gathers and reduce-scatters so far.
  double communication_seconds() const { return comm_seconds_; }
  /// The optimizer over the blocks.
  const optim::Optimizer& inner() const { return *inner_; }
  const Communicator& communicator() const { return comm_; }
  /// The model whose layers run (their parameters released between uses).
  const std::shared_ptr<nn::Sequential>& model() const { return model_; }

  /// One layer with parameters (for the graph nodes in fully_sharded.cpp).
  struct Unit {
    std::shared_ptr<nn::Module> layer;
    FlatShards layout;  // the layer's parameters end to end, in P blocks
    Tensor shard;       // [S_u]: this rank's block, a leaf
  };
  /// The layer's whole parameters, gathered from every rank's block (views of one buffer).
  std::vector<Tensor> gather(const Unit& unit);
  /// The average over the ranks of this rank's block of `grads` (the layer's parameter
  /// gradients; undefined ones count as zeros; dropped once laid end to end): [S_u].
  Tensor reduce_scatter(const Unit& unit, std::vector<Tensor> grads);

 private:
  // Every unit's layout, in unit order (the optimizer state's translation).
  std::vector<FlatShards> layouts() const;

  std::shared_ptr<nn::Sequential> model_;
  Communicator comm_;
  std::vector<std::shared_ptr<nn::Module>> layers_;  // what runs, nested Sequentials opened
  std::vector<Unit> units_;
  std::vector<int> unit_of_layer_;  // per entry of layers_: its unit, or -1
  std::vector<std::string> parameter_names_;
  std::unique_ptr<optim::Optimizer> inner_;
  double comm_seconds_ = 0;
};

}  // namespace exadnn::dist
