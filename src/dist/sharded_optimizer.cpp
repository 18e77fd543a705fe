// ShardedOptimizer (dist/sharded_optimizer.h): flat gradients reduce-scattered, one block updated
// per rank, blocks all-gathered; the state translated to and from the one-process layout.
#include "exadnn/dist/sharded_optimizer.h"

#include <algorithm>
#include <chrono>
#include <string>

#include "exadnn/autograd/grad_mode.h"
#include "exadnn/dist/data_parallel.h"
#include "exadnn/ops/factories.h"
#include "exadnn/ops/inplace.h"

namespace exadnn::dist {
namespace {

constexpr const char* kWhere = "dist::ShardedOptimizer";

// Blocks of a flat [P·S] tensor gathered from every rank's [S].
Tensor gather_blocks(const Tensor& block, const Communicator& comm) {
  Tensor all = empty({comm.size() * block.numel()}, TensorOptions().dtype(block.dtype()));
  comm.allgather(all, block.contiguous()).wait();
  return all;
}

// The names of the inner optimizer's per-parameter buffers ("momentum_buffer", "exp_avg", ...).
std::vector<std::string> buffer_names(const StateDict& inner_state) {
  std::vector<std::string> names;
  for (const auto& [name, t] : inner_state)
    if (name.rfind("0.", 0) == 0 && name != "0.step") names.push_back(name.substr(2));
  return names;
}

}  // namespace

ShardedOptimizer::ShardedOptimizer(std::vector<Tensor> params, Communicator comm,
                                   const OptimizerFactory& make)
    : params_(std::move(params)), comm_(std::move(comm)) {
  EXADNN_CHECK(!params_.empty(), kWhere, "has no parameters");
  for (size_t i = 0; i < params_.size(); ++i) {
    EXADNN_CHECK(params_[i].defined() && params_[i].dtype() == DType::f32, kWhere, "parameter ", i,
                 " is not f32 (",
                 params_[i].defined() ? dtype_name(params_[i].dtype()) : "undefined",
                 "): only f32 models are sharded");
    total_ += params_[i].numel();
  }
  {
    NoGradGuard no_grad;  // every rank starts from rank 0's parameters
    std::vector<Work> works;
    for (const Tensor& p : params_) {
      EXADNN_CHECK(p.is_contiguous(), kWhere, "parameters must be contiguous");
      works.push_back(comm_.broadcast(p, 0));
    }
    for (Work& w : works) w.wait();
  }
  const int64_t p = comm_.size(), s = (total_ + p - 1) / p;
  shard_ = flat_params().narrow(0, comm_.rank() * s, s).contiguous().clone();
  shard_.requires_grad_(true);
  inner_ = make({shard_});
  EXADNN_CHECK(inner_ != nullptr, kWhere, "the optimizer factory returned nothing");
}

Tensor ShardedOptimizer::flat_params() const {
  const int64_t s = (total_ + comm_.size() - 1) / comm_.size();
  Tensor flat = zeros({comm_.size() * s});
  NoGradGuard no_grad;
  int64_t offset = 0;
  for (const Tensor& p : params_) {
    copy_(flat.narrow(0, offset, p.numel()), p.detach().reshape({p.numel()}));
    offset += p.numel();
  }
  return flat;
}

Tensor ShardedOptimizer::flat_grads() const {
  const int64_t s = shard_.numel();
  Tensor flat = zeros({comm_.size() * s});
  NoGradGuard no_grad;
  int64_t offset = 0;
  for (const Tensor& p : params_) {
    const Tensor g = p.grad();
    if (g.defined()) copy_(flat.narrow(0, offset, p.numel()), g.reshape({p.numel()}));
    offset += p.numel();
  }
  return flat;
}

void ShardedOptimizer::scatter_into_params(const Tensor& flat) {
  NoGradGuard no_grad;
  int64_t offset = 0;
  for (const Tensor& p : params_) {
    copy_(p, flat.narrow(0, offset, p.numel()).reshape(p.shape()));
    offset += p.numel();
  }
}

void ShardedOptimizer::read_block() {
  NoGradGuard no_grad;
  const int64_t s = shard_.numel(), begin = comm_.rank() * s, end = begin + s;
  int64_t offset = 0;  // where each parameter starts in the flat [N]
  for (const Tensor& p : params_) {
    const int64_t lo = std::max(begin, offset), hi = std::min(end, offset + p.numel());
    if (lo < hi)
      copy_(shard_.narrow(0, lo - begin, hi - lo),
            p.detach().reshape({p.numel()}).narrow(0, lo - offset, hi - lo));
    offset += p.numel();
  }
}

void ShardedOptimizer::step() {
  read_block();  // the parameters as they are now (a checkpoint may have replaced them)
  // 1. Average of the gradients, this rank's block: [P·S] → [S].
  Tensor block_grad = empty({shard_.numel()});
  const Tensor grads = flat_grads();
  auto t0 = std::chrono::steady_clock::now();
  comm_.reduce_scatter(block_grad, grads).wait();
  comm_seconds_ += std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  mul_(block_grad, 1.0 / comm_.size());
  // 2. The optimizer on the block.
  shard_.set_grad(block_grad);
  inner_->step();
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
  const StateDict inner = inner_->state_dict();
  StateDict out;
  out.insert("step", inner.at("step"));
  out.insert("lr", inner.at("lr"));
  const auto buffers = buffer_names(inner);
  std::vector<Tensor> gathered;
  for (const auto& name : buffers) gathered.push_back(gather_blocks(inner.at("0." + name), comm_));
  int64_t offset = 0;
  for (size_t i = 0; i < params_.size(); ++i) {
    const std::string key = std::to_string(i) + ".";
    out.insert(key + "step", inner.at("0.step").clone());
    for (size_t b = 0; b < buffers.size(); ++b)
      out.insert(
          key + buffers[b],
          gathered[b].narrow(0, offset, params_[i].numel()).reshape(params_[i].shape()).clone());
    offset += params_[i].numel();
  }
  return out;
}

void ShardedOptimizer::load_state_dict(const StateDict& state) {
  const auto buffers = buffer_names(inner_->state_dict());
  // Every entry checked before anything changes.
  for (const char* name : {"step", "lr", "0.step"})
    EXADNN_CHECK(state.contains(name), kWhere, "the state has no entry '", name, "'");
  for (size_t i = 0; i < params_.size(); ++i)
    for (const auto& b : buffers) {
      const std::string key = std::to_string(i) + "." + b;
      EXADNN_CHECK(state.contains(key), kWhere, "the state has no entry '", key, "'");
      EXADNN_CHECK(state.at(key).shape() == params_[i].shape(), kWhere, "entry '", key,
                   "' has shape ", state.at(key).shape(), ", parameter ", i, " has ",
                   params_[i].shape());
    }
  const int64_t s = shard_.numel();
  StateDict inner;
  inner.insert("step", state.at("step"));
  inner.insert("lr", state.at("lr"));
  inner.insert("0.step", state.at("0.step"));
  for (const auto& b : buffers) {
    Tensor flat = zeros({comm_.size() * s});
    int64_t offset = 0;
    for (size_t i = 0; i < params_.size(); ++i) {
      const Tensor& t = state.at(std::to_string(i) + "." + b);
      copy_(flat.narrow(0, offset, t.numel()), t.to(DType::f32).reshape({t.numel()}));
      offset += t.numel();
    }
    inner.insert("0." + b, flat.narrow(0, comm_.rank() * s, s).contiguous().clone());
  }
  inner_->load_state_dict(inner);
}

}  // namespace exadnn::dist
