// ShardedOptimizer (dist/sharded_optimizer.h): flat gradients reduce-scattered, one block updated
// per rank, blocks all-gathered; the state translated to and from the one-process layout.
#include "exadnn/dist/sharded_optimizer.h"

#include <chrono>
#include <string>

#include "exadnn/autograd/grad_mode.h"
#include "exadnn/ops/factories.h"
#include "exadnn/ops/inplace.h"

namespace exadnn::dist {
namespace {

constexpr const char* kWhere = "dist::ShardedOptimizer";

std::vector<Shape> shapes_of(const std::vector<Tensor>& tensors) {
  std::vector<Shape> shapes;
  for (const Tensor& t : tensors) shapes.push_back(t.shape());
  return shapes;
}

}  // namespace

ShardedOptimizer::ShardedOptimizer(std::vector<Tensor> params, Communicator comm,
                                   const OptimizerFactory& make)
    : params_(std::move(params)), comm_(std::move(comm)) {
  EXADNN_CHECK(!params_.empty(), kWhere, "has no parameters");
  for (size_t i = 0; i < params_.size(); ++i)
    EXADNN_CHECK(params_[i].defined() && params_[i].dtype() == DType::f32, kWhere, "parameter ", i,
                 " is not f32 (",
                 params_[i].defined() ? dtype_name(params_[i].dtype()) : "undefined",
                 "): only f32 models are sharded");
  layout_ = FlatShards(shapes_of(params_), 0, comm_.size());
  {
    NoGradGuard no_grad;  // every rank starts from rank 0's parameters
    std::vector<Work> works;
    for (const Tensor& p : params_) {
      EXADNN_CHECK(p.is_contiguous(), kWhere, "parameters must be contiguous");
      works.push_back(comm_.broadcast(p, 0));
    }
    for (Work& w : works) w.wait();
  }
  shard_ = layout_.block_of(params_, comm_.rank());
  shard_.requires_grad_(true);
  inner_ = make({shard_});
  EXADNN_CHECK(inner_ != nullptr, kWhere, "the optimizer factory returned nothing");
}

int64_t ShardedOptimizer::total_numel() const {
  return layout_.total();
}

void ShardedOptimizer::scatter_into_params(const Tensor& flat) {
  NoGradGuard no_grad;
  const std::vector<Tensor> values = layout_.unflatten(flat);
  for (size_t i = 0; i < params_.size(); ++i) copy_(params_[i], values[i]);
}

void ShardedOptimizer::read_block() {
  NoGradGuard no_grad;
  copy_(shard_, layout_.block_of(params_, comm_.rank()));
}

void ShardedOptimizer::step() {
  read_block();  // the parameters as they are now (a checkpoint may have replaced them)
  // 1. Average of the gradients, this rank's block: [P·S] → [S].
  Tensor block_grad = empty({shard_.numel()});
  std::vector<Tensor> grads;
  for (const Tensor& p : params_) grads.push_back(p.grad());
  const Tensor flat_grads = layout_.flatten(grads);
  auto t0 = std::chrono::steady_clock::now();
  comm_.reduce_scatter(block_grad, flat_grads).wait();
  comm_seconds_ += std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  mul_(block_grad, 1.0 / comm_.size());
  // 2. The optimizer on the block.
  shard_.set_grad(block_grad);
  inner_->step();
  shard_.zero_grad();  // the block's gradient is not kept between steps
  // 3. Every rank's updated block back into the parameters.
  t0 = std::chrono::steady_clock::now();
  const Tensor updated = gather_blocks(shard_.detach(), comm_);
  comm_seconds_ += std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  scatter_into_params(updated);
}

void ShardedOptimizer::zero_grad() {
  for (Tensor& p : params_) p.zero_grad();
  shard_.zero_grad();
}

StateDict ShardedOptimizer::state_dict() const {
  return one_process_state(inner_->state_dict(), {layout_}, comm_);
}

void ShardedOptimizer::load_state_dict(const StateDict& state) {
  inner_->load_state_dict(
      sharded_state(state, {layout_}, buffer_names(inner_->state_dict()), comm_, kWhere));
}

}  // namespace exadnn::dist
