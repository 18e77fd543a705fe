// DataParallel: synchronous data-parallel training of one module over the ranks of a communicator.
//
//   dist::DataParallel ddp(model, dist::Communicator::world());  // broadcasts rank 0's weights
//   for (auto& batch : loader) {                                 // each rank: its own shard
//     auto loss = nn::cross_entropy(model.forward(batch.inputs), batch.targets);
//     opt.zero_grad();
//     loss.backward();   // buckets are allreduced while backward runs; when it returns,
//     opt.step();        // every rank holds the averaged gradients
//   }
//
// Gradient-ready hooks on the parameters feed a GradientReducer; its final wait runs as the
// backward pass ends (autograd::queue_callback), so clipping and the optimizer see averaged
// gradients and nothing in the training loop changes but the wrap. A module that lives on a GPU
// is broadcast and reduced there, over NCCL, when the program links exadnn_dist_cuda.
#pragma once

#include <memory>
#include <vector>

#include "exadnn/dist/communicator.h"
#include "exadnn/dist/reducer.h"
#include "exadnn/nn/module.h"

namespace exadnn::dist {

/// Wraps a module for synchronous data-parallel training (see the file comment).
class DataParallel {
 public:
  /// Collective: broadcasts rank 0's parameters and buffers, builds the buckets and checks that
  /// every rank built the same ones. `module` must outlive this object.
  DataParallel(nn::Module& module, Communicator comm, ReducerOptions options = {});
  ~DataParallel();  // removes the hooks
  DataParallel(const DataParallel&) = delete;
  DataParallel& operator=(const DataParallel&) = delete;

  nn::Module& module() { return module_; }
  const Communicator& communicator() const { return reducer_->communicator(); }
  const GradientReducer& reducer() const { return *reducer_; }

  /// While the returned guard lives, backward passes only accumulate local gradients (gradient
  /// accumulation); the first backward after it ends averages everything accumulated.
  class NoSyncGuard {
   public:
    explicit NoSyncGuard(DataParallel& owner) : owner_(owner), previous_(owner.sync_) {
      owner.sync_ = false;
    }
    ~NoSyncGuard() { owner_.sync_ = previous_; }
    NoSyncGuard(const NoSyncGuard&) = delete;
    NoSyncGuard& operator=(const NoSyncGuard&) = delete;

   private:
    DataParallel& owner_;
    bool previous_;
  };
  [[nodiscard]] NoSyncGuard no_sync() { return NoSyncGuard(*this); }

  /// Averages the gradients now if a backward pass left a step unfinished (it normally finishes
  /// itself); harmless otherwise.
  void finish();

 private:
  void on_gradient_ready(size_t index);

  nn::Module& module_;
  std::vector<Tensor> params_;
  std::vector<uint64_t> hook_ids_;
  std::unique_ptr<GradientReducer> reducer_;
  bool sync_ = true;
};

/// Copies rank `root`'s parameters and buffers of `module` to every rank (collective).
void broadcast_module(nn::Module& module, const Communicator& comm, int root = 0);

}  // namespace exadnn::dist
