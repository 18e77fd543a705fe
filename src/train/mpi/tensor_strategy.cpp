// parallel: {tensor: T} (mpi_strategies.h): every linear → activation → linear run of the model
// list becomes a dist::ColumnParallelLinear (output features split over the T tensor ranks, no
// gather) → the activation → a dist::RowParallelLinear (input features split, one allreduce), over
// the tensor axis of a data × tensor ProcessGrid; the other layers are replicated on every tensor
// rank. The D = ranks / T replicas each read their shard of every epoch and average gradients.
//
// Every rank builds the whole model (same seed); the split layers start from its weights' blocks
// (a resumed checkpoint's), so the run starts where one process does. After each epoch the blocks
// are gathered back into every rank's whole model (the root scores and saves it); checkpoints hold
// the one-process layout of the weights and of the optimizer state (its buffers gathered and split
// like the weights).
#include "mpi_strategies.h"
#include "mpi_strategy.h"
#include "tensor_split.h"

namespace exadnn::train::internal {
namespace {

class TensorStrategy : public ModelSplitStrategy {
 public:
  TensorStrategy(const MpiSpec& spec, const ParallelSpec& parallel)
      : ModelSplitStrategy(
            spec, {dist::Communicator::world().size() / parallel.tensor, 1, parallel.tensor}) {}
  std::unique_ptr<optim::Optimizer> make_optimizer(const std::shared_ptr<nn::Module>& model,
                                                   const MakeOptimizer& make) override {
    take_model(model, "tensor");
    split_ = std::make_unique<TensorSplit>(whole_, grid_);
    return make(split_->model()->parameters());
  }
  // The model is in place (a resumed checkpoint's weights too): the split layers take its blocks.
  void attach(const std::shared_ptr<nn::Module>&, const TrainingRecipe&) override {
    split_->take_blocks();
  }
  bool runs_forward_backward() const override { return true; }
  double forward_backward(const data::Batch& batch, const LossFunction& loss) override {
    return train_on(*split_->model(), batch.inputs, batch.targets, loss);
  }
  EpochTotals combine(const EpochTotals& mine) override {
    split_->gather_into_whole();  // for the root's score and save
    return combine_replicas(mine);
  }
  // The one-process layout: each split parameter's buffers gathered like the parameter.
  StateDict optimizer_state(const optim::Optimizer& opt) override {
    return split_->gather_optimizer_state(opt.state_dict());
  }
  void load_optimizer_state(optim::Optimizer& opt, const StateDict& state) override {
    opt.load_state_dict(split_->block_optimizer_state(state));
  }
  std::string describe() const override {
    return detail::cat(
        world_.size(), " ranks: ", grid_.shape().tensor, "-way tensor parallel (",
        split_ ? split_->runs() : 0, " linear runs split; ",
        parameters_held(split_ ? split_->model()->parameters() : std::vector<Tensor>{}), ") × ",
        grid_.shape().data, " data-parallel");
  }

 private:
  std::unique_ptr<TensorSplit> split_;
};

}  // namespace

std::unique_ptr<Strategy> make_tensor_strategy(const MpiSpec& spec, const ParallelSpec& parallel) {
  return std::make_unique<TensorStrategy>(spec, parallel);
}

}  // namespace exadnn::train::internal
