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
#include "exadnn/dist/pipeline.h"
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

// parallel: {pipeline: P, micro_batches: M, schedule, recompute, boundaries}: the model list cut
// into P stages (dist::PipelineParallel) over the pipeline axis of a data × pipeline grid; the D =
// ranks / P replicas each read their shard of every epoch and average their stage's gradients.
// Every rank builds the whole model (same seed) and trains its stage; after each epoch the
// stages' weights are gathered into every rank's whole model (the root scores and saves it), and
// checkpoints hold the one-process layout of the weights and of the optimizer state.
class PipelineStrategy : public ModelSplitStrategy {
 public:
  PipelineStrategy(const MpiSpec& spec, const ParallelSpec& parallel)
      : ModelSplitStrategy(
            spec, {dist::Communicator::world().size() / parallel.pipeline, parallel.pipeline, 1}),
        parallel_(parallel) {}
  void see_examples(const Shape& example, int64_t batch_size) override {
    example_ = example;
    batch_size_ = batch_size;
  }
  std::unique_ptr<optim::Optimizer> make_optimizer(const std::shared_ptr<nn::Module>& model,
                                                   const MakeOptimizer& make) override {
    take_model(model, "pipeline");
    std::vector<size_t> cuts(parallel_.boundaries.begin(), parallel_.boundaries.end());
    dist::PipelineOptions options = dist::PipelineOptions()
                                        .micro_batches(parallel_.micro_batches)
                                        .schedule(dist::parse_pipeline_schedule(parallel_.schedule))
                                        .recompute(parallel_.recompute)
                                        .boundaries(cuts);
    if (parallel_.balance == "measured") options.balance_by(sample_micro_batch());
    pipe_ = std::make_unique<dist::PipelineParallel>(*whole_, grid_.pipeline(), options);
    for (size_t i = 0; i < pipe_->first_layer(); ++i)
      first_param_ += (*whole_)[i]->parameters().size();
    return make(pipe_->stage().parameters());
  }
  // Every batch must split into micro-batches, the epoch's last, shorter one too: checked before
  // the first step (every rank finds the same).
  void for_each_batch(data::DataLoader& loader, int64_t epoch,
                      const std::function<void(const data::Batch&)>& use) override {
    const data::DataLoaderOptions& o = loader.options();
    const int64_t examples = loader.dataset().size() / grid_.shape().data;
    const int64_t last = o.drop_last() ? 0 : examples % o.batch_size();
    EXADNN_CHECK(last % parallel_.micro_batches == 0, "train", "'parallel.micro_batches' is ",
                 parallel_.micro_batches, ", which does not divide the epoch's last batch of ",
                 last, " examples (", examples, " per data-parallel replica in batches of ",
                 o.batch_size(), ")");
    Strategy::for_each_batch(loader, epoch, use);
  }
  bool runs_forward_backward() const override { return true; }
  double forward_backward(const data::Batch& batch, const LossFunction& loss) override {
    return pipe_->forward_backward(batch.inputs, batch.targets, loss);
  }
  EpochTotals combine(const EpochTotals& mine) override {
    whole_->load_state_dict(pipe_->full_state_dict());  // for the root's score and checkpoint
    return combine_replicas(mine);
  }
  // The one-process layout: every parameter's entries, this stage's filled in, summed over the
  // stages (the other stages' entries are zeros here).
  StateDict optimizer_state(const optim::Optimizer& opt) override {
    const StateDict mine = opt.state_dict();
    const std::vector<Tensor> all = whole_->parameters();
    const size_t own = opt.params().size();
    StateDict out;
    out.insert("step", mine.at("step"));
    out.insert("lr", mine.at("lr"));
    std::vector<dist::Work> works;
    for (const std::string& buffer : buffer_names(mine))
      for (size_t i = 0; i < all.size(); ++i) {
        const bool ours = i >= first_param_ && i < first_param_ + own;
        const std::string local = std::to_string(i - first_param_) + "." + buffer;
        Tensor t = ours               ? mine.at(local).clone()
                   : buffer == "step" ? zeros(Shape{}, TensorOptions().dtype(DType::i64))
                                      : zeros(all[i].shape(), TensorOptions().dtype(DType::f32));
        works.push_back(grid_.pipeline().allreduce(t));
        out.insert(std::to_string(i) + "." + buffer, t);
      }
    for (dist::Work& w : works) w.wait();
    return out;
  }
  void load_optimizer_state(optim::Optimizer& opt, const StateDict& state) override {
    StateDict mine;  // this stage's entries, numbered from 0
    for (const auto& [name, t] : state) {
      const size_t dot = name.find('.');
      if (dot == std::string::npos) {
        mine.insert(name, t);
        continue;
      }
      const size_t i = std::stoul(name.substr(0, dot));
      if (i >= first_param_ && i < first_param_ + opt.params().size())
        mine.insert(std::to_string(i - first_param_) + name.substr(dot), t);
    }
    opt.load_state_dict(mine);
  }
  std::string describe() const override {
    return detail::cat(world_.size(), " ranks: ", parallel_.pipeline, "-stage pipeline (",
                       parallel_.schedule, ", ", parallel_.micro_batches,
                       parallel_.micro_batches == 1 ? " micro-batch" : " micro-batches",
                       "; layers [", pipe_ ? pipe_->first_layer() : 0, ", ",
                       pipe_ ? pipe_->end_layer() : 0, ") of ", whole_ ? whole_->size() : 0,
                       " on rank 0, ",
                       parameters_held(pipe_ ? pipe_->stage().parameters() : std::vector<Tensor>{}),
                       "; ", stage_cut(), ") × ", grid_.shape().data, " data-parallel");
  }

 private:
  // The per-parameter entries of an optimizer's state ("step", "momentum_buffer", ...).
  static std::vector<std::string> buffer_names(const StateDict& state) {
    std::vector<std::string> names;
    for (const auto& [name, t] : state)
      if (name.rfind("0.", 0) == 0) names.push_back(name.substr(2));
    return names;
  }

  // A micro-batch of random f32 inputs [batch / micro_batches, ...example] for timing the layers
  // (its own generator: the run's random stream is not touched).
  Tensor sample_micro_batch() const {
    EXADNN_CHECK(!example_.empty(), "train",
                 "'parallel.balance: measured' needs the examples' shape (see_examples)");
    Shape shape{batch_size_ / parallel_.micro_batches};
    for (int64_t d : example_) shape.push_back(d);
    Generator gen(0x6a1a);
    const std::vector<Tensor> params = whole_->parameters();
    return randn(shape, TensorOptions().device(params.empty() ? Device::cpu() : params[0].device()),
                 &gen);
  }
  // "stages start at layers 0, 5 (balanced by ...)".
  std::string stage_cut() const {
    if (!pipe_) return "";
    std::string firsts;
    for (size_t k = 0; k + 1 < pipe_->cuts().size(); ++k)
      firsts += (k ? ", " : "") + std::to_string(pipe_->cuts()[k]);
    if (!parallel_.boundaries.empty()) return "stages start at layers " + firsts + " (boundaries)";
    if (pipe_->layer_costs().empty())
      return "stages start at layers " + firsts + " (balanced by parameter count)";
    std::string times;
    for (size_t k = 0; k + 1 < pipe_->cuts().size(); ++k) {
      double t = 0;
      for (size_t i = pipe_->cuts()[k]; i < pipe_->cuts()[k + 1]; ++i) t += pipe_->layer_costs()[i];
      char ms[32];
      std::snprintf(ms, sizeof ms, "%s%.3f", k ? " / " : "", 1e3 * t);
      times += ms;
    }
    return "stages start at layers " + firsts + " (balanced by measured time: " + times +
           " ms forward + backward per micro-batch)";
  }

  ParallelSpec parallel_;
  std::unique_ptr<dist::PipelineParallel> pipe_;
  size_t first_param_ = 0;  // this stage's first parameter in the whole model's order
  Shape example_;
  int64_t batch_size_ = 0;
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
    if (parallel.pipeline > 1) return std::make_unique<PipelineStrategy>(spec, parallel);
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
