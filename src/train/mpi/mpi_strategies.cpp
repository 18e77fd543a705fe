// The MPI strategies: data-parallel allreduce (dist::DataParallel; with parallel.shard the
// optimizer state split over the ranks, dist::ShardedOptimizer), the parameter server
// (dist::ParameterServer) and asynchronous SGD over MPI RMA (dist::RmaParameterStore), for a
// Trainer under `mpirun -np P`.
//
// EXADNN_STRAGGLER=RANK:FACTOR (e.g. 1:2) slows rank RANK down FACTOR times, for benchmarks: after
// each of its steps it sleeps (FACTOR - 1) times its fastest step so far (allreduce, async_rma).
#include <mpi.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <thread>

#include "exadnn/dist/communicator.h"
#include "exadnn/dist/data_parallel.h"
#include "exadnn/dist/environment.h"
#include "exadnn/dist/parameter_server.h"
#include "exadnn/dist/process_grid.h"
#include "exadnn/dist/rma_parameter_store.h"
#include "exadnn/dist/sharded_optimizer.h"
#include "exadnn/ops/factories.h"
#include "exadnn/ops/inplace.h"
#include "exadnn/optim/sgd.h"
#include "mpi_strategies.h"
#include "mpi_strategy.h"

namespace exadnn::train::internal {

namespace {

class AllreduceStrategy : public MpiStrategy {
 public:
  using MpiStrategy::MpiStrategy;
  data::DataLoaderOptions shard(data::DataLoaderOptions o) const override {
    return o.distributed(world_.rank(), world_.size());
  }
  void attach(const std::shared_ptr<nn::Module>& model, const TrainingRecipe&) override {
    const auto mib = [](double mb) { return static_cast<int64_t>(mb * (1 << 20)); };
    ddp_ = std::make_unique<dist::DataParallel>(
        *model, world_,
        dist::ReducerOptions()
            .bucket_bytes(mib(spec_.bucket_mb))
            .first_bucket_bytes(mib(spec_.first_bucket_mb))
            .transport(dist::parse_reducer_transport(spec_.transport, "distributed.transport")));
  }
  bool step(optim::Optimizer& opt, optim::GradScaler& scaler) override {
    const bool stepped = scaler.step(opt);  // gradients averaged: every rank decides alike
    straggle();
    return stepped;
  }
  bool any_rank(bool flag) override {
    Tensor t = from_vector<int32_t>({flag ? 1 : 0});
    world_.allreduce(t, dist::ReduceOp::max).wait();
    return t.data<int32_t>()[0] != 0;
  }
  EpochTotals combine(const EpochTotals& mine) override {
    const EpochTotals all = combine_over(world_, mine);
    restart_clock();
    return all;
  }
  std::string describe() const override {
    return detail::cat(world_.size(), " ranks, allreduce (",
                       ddp_ ? ddp_->reducer().num_buckets() : 0, " gradient buckets, ",
                       ddp_ ? ddp_->reducer().transport_name() : "", ")");
  }

 private:
  std::unique_ptr<dist::DataParallel> ddp_;
};

// parallel: {shard: true} (ZeRO-1): data parallel as allreduce (each rank its shard of every
// epoch), but the gradients are reduce-scattered, each rank updates its block of the flattened
// parameters with its block of the optimizer state, and the blocks are all-gathered.
// Checkpoints hold the one-process layout (gathered), and a resume takes it.
class ShardedStrategy : public AllreduceStrategy {
 public:
  using AllreduceStrategy::AllreduceStrategy;
  std::unique_ptr<optim::Optimizer> make_optimizer(const std::shared_ptr<nn::Module>& model,
                                                   const MakeOptimizer& make) override {
    std::vector<Tensor> params = model->parameters();
    sharded_ = std::make_unique<dist::ShardedOptimizer>(params, world_, make);
    // Bytes of optimizer state on this rank, and what one process keeps (every buffer whole).
    const StateDict inner = sharded_->inner().state_dict();
    const std::vector<std::string> buffers = dist::buffer_names(inner);
    for (const std::string& b : buffers)
      state_bytes_ += static_cast<int64_t>(inner.at("0." + b).nbytes());
    one_process_bytes_ = static_cast<int64_t>(buffers.size()) * sharded_->total_numel() *
                         static_cast<int64_t>(sizeof(float));
    return std::make_unique<ShardedFront>(std::move(params), sharded_->lr());
  }
  void load_optimizer_state(optim::Optimizer& front, const StateDict& state) override {
    sharded_->load_state_dict(state);
    front.set_lr(sharded_->lr());
  }
  void attach(const std::shared_ptr<nn::Module>&, const TrainingRecipe&) override {}
  bool step(optim::Optimizer& front, optim::GradScaler& scaler) override {
    // The front's step only unscales (fp16) and agrees on skipping; the update is the shards'.
    if (!scaler.step(front)) return false;
    sharded_->set_lr(front.lr());
    sharded_->step();
    straggle();
    return true;
  }
  StateDict optimizer_state(const optim::Optimizer& front) override {
    sharded_->set_lr(front.lr());  // a schedule may have changed it since the last step
    return sharded_->state_dict();
  }
  std::string describe() const override {
    return detail::cat(world_.size(), " ranks, allreduce with the optimizer state sharded (",
                       sharded_ ? sharded_->shard_numel() : 0, " of ",
                       sharded_ ? sharded_->total_numel() : 0,
                       " values per buffer; optimizer state ", state_bytes_,
                       " bytes on this rank, ", one_process_bytes_, " in one process)");
  }

 private:
  std::unique_ptr<dist::ShardedOptimizer> sharded_;
  int64_t state_bytes_ = 0, one_process_bytes_ = 0;
};

// The ranks must hold whole model replicas. Before any message, so every rank says the same.
void check_parallel_layout(const ParallelSpec& p, int ranks) {
  EXADNN_CHECK(ranks % p.model_ranks() == 0, "train",
               "'parallel' splits one model over tensor × pipeline × spatial = ", p.tensor, " × ",
               p.pipeline, " × ", p.spatial, " = ", p.model_ranks(),
               " ranks, which does not divide the job's ", ranks,
               " ranks (ranks = that × the data-parallel replicas)");
}

class ParameterServerStrategy : public MpiStrategy {
 public:
  explicit ParameterServerStrategy(const MpiSpec& spec) : MpiStrategy(spec) {
    EXADNN_CHECK(spec.servers < world_.size(), "train", "distributed.servers is ", spec.servers,
                 " but the job has ", world_.size(), " ranks: at least one must be a worker");
  }
  bool trains() const override { return world_.rank() < world_.size() - spec_.servers; }
  data::DataLoaderOptions shard(data::DataLoaderOptions o) const override {
    return trains() ? o.distributed(world_.rank(), world_.size() - spec_.servers) : o;
  }
  void attach(const std::shared_ptr<nn::Module>& model, const TrainingRecipe& recipe) override {
    ps_ = std::make_unique<dist::ParameterServer>(*model, world_, recipe.make_optimizer,
                                                  dist::ParameterServerOptions()
                                                      .servers(spec_.servers)
                                                      .asynchronous(spec_.asynchronous)
                                                      .push_every(spec_.push_every)
                                                      .pull_every(spec_.pull_every));
  }
  bool step(optim::Optimizer&, optim::GradScaler&) override {  // fp16 is refused with it
    ps_->step();
    straggle();
    return true;
  }
  void serve() override { ps_->serve(); }
  // Asynchronous: every worker's updates of the epoch reach every worker before the root scores
  // the model (the epoch end is a barrier over the workers anyway).
  EpochTotals combine(const EpochTotals& mine) override {
    const EpochTotals totals = combine_over(ps_->group(), mine);
    ps_->synchronize();
    return totals;
  }
  // The optimizer state is the servers': gathered for checkpoints, scattered on --resume.
  StateDict optimizer_state(const optim::Optimizer&) override {
    return ps_->gather_optimizer_state();
  }
  void restore_optimizer_state(const StateDict& state) override {
    ps_->load_optimizer_state(state);
  }
  void end_training() override {
    if (trains()) ps_->finish();
  }
  std::string describe() const override {
    return detail::cat(world_.size(), " ranks, parameter server (", spec_.servers, " servers, ",
                       spec_.asynchronous ? "asynchronous" : "synchronous", ")");
  }

 private:
  std::unique_ptr<dist::ParameterServer> ps_;
};

// Asynchronous SGD over MPI RMA: the parameters live in MPI windows; each rank claims the epoch's
// batches from a shared counter (so a fast rank trains on more of them), reads the current
// parameters before each batch and adds its update when done. The optimizer (and its momentum)
// stays on each rank; plain SGD adds -lr·grad (one rank: serial SGD bit for bit).
class AsyncRmaStrategy : public MpiStrategy {
 public:
  using MpiStrategy::MpiStrategy;
  void attach(const std::shared_ptr<nn::Module>& model, const TrainingRecipe&) override {
    store_ = std::make_unique<dist::RmaParameterStore>(
        *model, world_,
        dist::RmaOptions()
            .staleness(spec_.staleness)
            .atomic_reads(spec_.atomic_reads)
            .read_on_update());  // each update also reads the parameters for the next step
    counter_ = std::make_unique<dist::RmaCounter>(world_);
    store_->read();
  }
  void for_each_batch(data::DataLoader& loader, int64_t epoch,
                      const std::function<void(const data::Batch&)>& use) override {
    const std::vector<int64_t> order = loader.epoch_order(epoch);
    const int64_t batches = loader.batches_per_epoch();
    while (true) {  // each rank's last ticket is past the end; combine() counts it too
      const int64_t ticket = counter_->fetch_add() - base_;  // this epoch's tickets start at base_
      ++claims_;
      if (ticket >= batches) return;
      use(loader.build(ticket, epoch, order));
    }
  }
  bool step(optim::Optimizer& opt, optim::GradScaler&) override {  // fp16 is refused with it
    const auto* sgd = dynamic_cast<const optim::SGD*>(&opt);
    if (sgd && sgd->options().momentum() == 0 && sgd->options().weight_decay() == 0 &&
        !sgd->options().maximize())
      store_->apply_gradients(opt.lr());  // exactly SGD's arithmetic
    else
      store_->step(opt);
    straggle();
    return true;
  }
  EpochTotals combine(const EpochTotals& mine) override {
    // Out of batches: the others, still finishing theirs, must not wait for this rank's updates
    // (a staleness bound would wait forever for a rank that waits in the collective below).
    store_->pause();
    const EpochTotals all = combine_over(world_, mine);
    // Every rank is done with the epoch: the next one's tickets follow all of this one's claims.
    Tensor claims = from_vector<int64_t>({claims_});
    world_.allreduce(claims).wait();
    base_ += claims.data<int64_t>()[0];
    claims_ = 0;
    store_->read();  // every update of the epoch is in: the root evaluates the latest weights
    restart_clock();
    return all;
  }
  void end_training() override {
    store_->finish();
    store_->read();
  }
  std::string describe() const override {
    return detail::cat(
        world_.size(), " ranks, asynchronous SGD over MPI RMA (staleness ",
        spec_.staleness < 0 ? std::string("unbounded") : std::to_string(spec_.staleness),
        spec_.atomic_reads ? ", atomic reads)" : ")");
  }

 private:
  std::unique_ptr<dist::RmaParameterStore> store_;
  std::unique_ptr<dist::RmaCounter> counter_;
  int64_t base_ = 0;    // the counter's value at the start of this epoch
  int64_t claims_ = 0;  // tickets this rank drew this epoch
};

}  // namespace

std::unique_ptr<Strategy> make_mpi_strategy(const MpiSpec& spec, const ParallelSpec& parallel,
                                            const std::vector<LayerSpec>& layers) {
  if (parallel.enabled) {  // with mode allreduce (config_parallel.cpp)
    check_parallel_layout(parallel, dist::Communicator::world().size());
    if (parallel.shard == 3) return make_fully_sharded_strategy(spec);
    if (parallel.shard) return std::make_unique<ShardedStrategy>(spec);
    if (parallel.pipeline > 1) return make_pipeline_strategy(spec, parallel);
    if (parallel.tensor > 1) return make_tensor_strategy(spec, parallel);
    if (parallel.spatial > 1) return make_spatial_strategy(spec, parallel, layers);
  }
  if (spec.mode == "param_server") return std::make_unique<ParameterServerStrategy>(spec);
  if (spec.mode == "async_rma") return std::make_unique<AsyncRmaStrategy>(spec);
  return std::make_unique<AllreduceStrategy>(spec);
}

bool abort_mpi_job(const std::string& message, int code) {
  return dist::abort_job(message, code);
}

}  // namespace exadnn::train::internal
