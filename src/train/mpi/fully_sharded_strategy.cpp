// parallel: {shard: 3} (mpi_strategies.h): ZeRO stage 3 through dist::FullyShardedModel — data
// parallel over the world's ranks (each reads its shard of every epoch), but every rank keeps only
// its block of each layer's parameters, gradients and optimizer state; a layer's whole parameters
// are gathered for its forward and again for its backward, whose gradients are reduce-scattered.
//
// Every rank builds the whole model (same seed). The Trainer's optimizer is a front over the
// blocks (ShardedFront: zero_grad, the rate a schedule sets); the update is the
// FullyShardedModel's. The model is made whole after attach (the blocks take its weights, a resumed
// checkpoint's included) and after every epoch (the root scores and saves it); the first forward
// of the next epoch releases each layer again. Checkpoints hold the one-process layout.
#include "exadnn/dist/fully_sharded.h"
#include "mpi_strategies.h"
#include "mpi_strategy.h"

namespace exadnn::train::internal {
namespace {

class FullyShardedStrategy : public ModelSplitStrategy {
 public:
  explicit FullyShardedStrategy(const MpiSpec& spec)
      : ModelSplitStrategy(spec, {dist::Communicator::world().size(), 1, 1}) {}

  std::unique_ptr<optim::Optimizer> make_optimizer(const std::shared_ptr<nn::Module>& model,
                                                   const MakeOptimizer& make) override {
    take_model(model, "shard: 3");
    sharded_ = std::make_unique<dist::FullyShardedModel>(whole_, world_, make);
    buffers_ = static_cast<int64_t>(dist::buffer_names(sharded_->inner().state_dict()).size());
    sharded_->gather_into_model();  // whole until the first step (a resume loads into it)
    return std::make_unique<ShardedFront>(sharded_->shards(), sharded_->lr());
  }
  void load_optimizer_state(optim::Optimizer& front, const StateDict& state) override {
    sharded_->load_optimizer_state_dict(state);
    front.set_lr(sharded_->lr());
  }
  // The model's weights as they are now (rank 0's; a resumed checkpoint's) into the blocks.
  void attach(const std::shared_ptr<nn::Module>&, const TrainingRecipe&) override {
    sharded_->load_state_dict(whole_->state_dict());
  }
  bool runs_forward_backward() const override { return true; }
  double forward_backward(const data::Batch& batch, const LossFunction& loss) override {
    const Tensor value = loss(sharded_->forward(batch.inputs), batch.targets);
    value.backward();  // each layer's gradients reduce-scattered into its block's
    return value.item<double>();
  }
  bool step(optim::Optimizer& front, optim::GradScaler& scaler) override {
    if (!scaler.step(front)) return false;  // fp32 only (config_parallel.cpp): a pass-through
    sharded_->set_lr(front.lr());
    sharded_->step();
    straggle();
    return true;
  }
  EpochTotals combine(const EpochTotals& mine) override {
    sharded_->gather_into_model();  // for the root's score and checkpoint
    return combine_replicas(mine);
  }
  StateDict optimizer_state(const optim::Optimizer& front) override {
    sharded_->set_lr(front.lr());  // a schedule may have changed it since the last step
    return sharded_->optimizer_state_dict();
  }
  std::string describe() const override {
    const int64_t kept = sharded_ ? sharded_->shard_numel() : 0;
    const int64_t all = sharded_ ? sharded_->total_numel() : 0;
    return detail::cat(world_.size(),
                       " ranks, allreduce with parameters, gradients and optimizer state sharded "
                       "(ZeRO-3: ",
                       kept, " of ", all, " parameters on this rank, the largest layer's ",
                       sharded_ ? sharded_->largest_unit_numel() : 0,
                       " whole while it runs; parameters and optimizer state ",
                       kept * (1 + buffers_) * 4, " bytes on this rank, ", all * (1 + buffers_) * 4,
                       " in one process)");
  }

 private:
  std::unique_ptr<dist::FullyShardedModel> sharded_;
  int64_t buffers_ = 0;  // the optimizer's state buffers per parameter
};

}  // namespace

std::unique_ptr<Strategy> make_fully_sharded_strategy(const MpiSpec& spec) {
  return std::make_unique<FullyShardedStrategy>(spec);
}

}  // namespace exadnn::train::internal
