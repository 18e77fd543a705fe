// MpiStrategy: the base of the MPI strategies (mpi_strategies.cpp, tensor_strategy.cpp,
// spatial_strategy.cpp), and ModelSplitStrategy, the base of those that split each model replica
// over ranks.
//
// EXADNN_STRAGGLER=RANK:FACTOR (e.g. 1:2) slows rank RANK down FACTOR times, for benchmarks: after
// each of its steps it sleeps (FACTOR - 1) times its fastest step so far.
#pragma once

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <thread>
#include <vector>

#include "exadnn/dist/communicator.h"
#include "exadnn/dist/mpi_interop.h"
#include "exadnn/dist/process_grid.h"
#include "exadnn/nn/container.h"
#include "exadnn/ops/factories.h"
#include "exadnn/ops/inplace.h"
#include "exadnn/train/strategies.h"

namespace exadnn::train::internal {

// What the MPI strategies share: the world communicator, the root, combining epoch figures,
// averaging gradients over data-parallel replicas, the EXADNN_STRAGGLER slowdown.
class MpiStrategy : public Strategy {
 public:
  explicit MpiStrategy(const MpiSpec& spec) : spec_(spec), world_(dist::Communicator::world()) {
    world_.set_timeout(std::chrono::milliseconds(static_cast<int64_t>(spec.timeout_s * 1000)));
    if (const char* straggler = std::getenv("EXADNN_STRAGGLER")) {
      int rank = -1;
      double factor = 1;
      EXADNN_CHECK(std::sscanf(straggler, "%d:%lf", &rank, &factor) == 2 && factor >= 1, "train",
                   "EXADNN_STRAGGLER must be RANK:FACTOR with FACTOR >= 1, got '", straggler, "'");
      if (rank == world_.rank()) slowdown_ = factor;
    }
    restart_clock();
    MPI_Comm node = MPI_COMM_NULL;  // the ranks that share this rank's memory
    if (MPI_Comm_split_type(dist::native_handle(world_), MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL,
                            &node) == MPI_SUCCESS) {
      MPI_Comm_size(node, &on_node_);
      MPI_Comm_free(&node);
    }
  }
  int ranks() const override { return world_.size(); }
  int processes_on_node() const override { return on_node_; }
  bool is_root() const override { return world_.rank() == 0; }

 protected:
  // Sums over `group` (the ranks that train); seconds become the slowest rank's.
  static EpochTotals combine_over(const dist::Communicator& group, const EpochTotals& mine) {
    Tensor sums = from_vector<double>({mine.loss_sum, double(mine.batches), double(mine.examples)});
    Tensor slowest = from_vector<double>({mine.seconds});
    dist::Work a = group.allreduce(sums), b = group.allreduce(slowest, dist::ReduceOp::max);
    a.wait();
    b.wait();
    const double* s = sums.data<double>();
    return {s[0], static_cast<int64_t>(s[1]), static_cast<int64_t>(s[2]),
            slowest.data<double>()[0]};
  }

  // Averages the gradients of `opt`'s parameters over `replicas` (nothing for one).
  static void average_gradients(const dist::Communicator& replicas, const optim::Optimizer& opt) {
    if (replicas.size() == 1) return;
    std::vector<Tensor> grads;
    std::vector<dist::Work> works;
    for (const Tensor& p : opt.params()) {
      grads.push_back(p.grad());
      if (grads.back().defined()) works.push_back(replicas.allreduce(grads.back()));
    }
    for (dist::Work& w : works) w.wait();
    for (const Tensor& g : grads)
      if (g.defined()) mul_(g, 1.0 / replicas.size());
  }

  // EXADNN_STRAGGLER: sleeps (factor - 1) × this rank's fastest step so far (its own compute
  // time: a step that waited for the others, e.g. in an allreduce, is longer and never the
  // fastest, so the slowdown does not feed on itself).
  void straggle() {
    if (slowdown_ <= 1) return;
    fastest_step_ = std::min(fastest_step_, std::chrono::steady_clock::now() - last_step_);
    std::this_thread::sleep_for((slowdown_ - 1) * fastest_step_);
    restart_clock();
  }
  void restart_clock() { last_step_ = std::chrono::steady_clock::now(); }

  MpiSpec spec_;
  dist::Communicator world_;
  int on_node_ = 1;  // ranks of the job on this node
  double slowdown_ = 1;
  std::chrono::steady_clock::time_point last_step_;
  std::chrono::steady_clock::duration fastest_step_ = std::chrono::hours(1);
};

// The base of the strategies that split each model replica over a group of ranks (pipeline,
// tensor, spatial): the job's ranks as a data × pipeline × tensor grid whose replicas each read
// their shard of every epoch; the model is the config's sequential list.
// The Trainer's handle on a sharded optimizer: the parameters it sees (zero_grad, the loss
// scaler's unscaling), the learning rate a schedule sets, the step count. It keeps no state
// buffers and updates nothing itself: the strategy's step applies the update through the
// dist:: object that holds each rank's block of the state (ShardedOptimizer, FullyShardedModel).
class ShardedFront final : public optim::Optimizer {
 public:
  ShardedFront(std::vector<Tensor> params, double lr)
      : Optimizer(std::move(params), lr, "sharded") {}

 private:
  void update(size_t, const Tensor&, const Tensor&) override {}
};

class ModelSplitStrategy : public MpiStrategy {
 public:
  ModelSplitStrategy(const MpiSpec& spec, dist::GridShape shape)
      : MpiStrategy(spec), grid_(world_, shape) {}
  data::DataLoaderOptions shard(data::DataLoaderOptions o) const override {
    return o.distributed(grid_.data_rank(), grid_.shape().data);  // a replica's ranks: one shard
  }
  // The replicas' average of the gradients of what this rank trains (its stage, its blocks),
  // then the step (fp16, which would need the loss scaler's verdict over the group: refused).
  bool step(optim::Optimizer& opt, optim::GradScaler& scaler) override {
    average_gradients(grid_.data(), opt);
    const bool stepped = scaler.step(opt);
    straggle();
    return stepped;
  }

 protected:
  // Keeps the model as the sequential list it splits; `key` names the setting in the error.
  void take_model(const std::shared_ptr<nn::Module>& model, const char* key) {
    whole_ = std::dynamic_pointer_cast<nn::Sequential>(model);
    EXADNN_CHECK(whole_ != nullptr, "train", "'parallel.", key,
                 "' splits a sequential model (a config's model: list); this program's model is "
                 "not an nn::Sequential");
  }
  // One batch's forward and backward through `model` (this rank's part of the split model);
  // returns the loss.
  static double train_on(nn::Module& model, const Tensor& inputs, const Tensor& targets,
                         const LossFunction& loss) {
    const Tensor value = loss(model.forward(inputs), targets);
    value.backward();
    return value.item<double>();
  }
  // The epoch's figures: a replica's ranks saw the same batches, so the data axis's sums.
  EpochTotals combine_replicas(const EpochTotals& mine) {
    const EpochTotals all = combine_over(grid_.data(), mine);
    restart_clock();
    return all;
  }

  // "N of M parameters on rank 0" (what this rank's optimizer updates, of the model's).
  std::string parameters_held(const std::vector<Tensor>& mine) const {
    int64_t n = 0;
    for (const Tensor& p : mine) n += p.numel();
    return detail::cat(n, " of ", whole_ ? whole_->parameter_count() : 0,
                       " parameters trained on rank 0");
  }

  dist::ProcessGrid grid_;
  std::shared_ptr<nn::Sequential> whole_;  // every rank's whole model
};

}  // namespace exadnn::train::internal
