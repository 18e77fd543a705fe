// parallel: {pipeline: P, micro_batches: M, schedule, recompute, boundaries, balance[, tensor: T]}
// (mpi_strategies.h): the model list cut into P stages (dist::PipelineParallel) over the pipeline
// axis of a data × pipeline × tensor grid; with T > 1 every linear → activation → linear run is
// first split over the T tensor ranks of each stage (TensorSplit, as parallel.tensor alone does),
// so each of the T ranks at a stage runs its blocks of the stage's layers and passes its own part
// of the activations to the same tensor rank of the next stage (the split hidden features of a run
// that a cut divides, the whole activations elsewhere). The D = ranks / (P · T) replicas each read
// their shard of every epoch and average their part's gradients.
//
// Every rank builds the whole model (same seed) and trains its stage (its blocks of it); after each
// epoch the stages' weights are gathered into every rank's whole model (the root scores and saves
// it), and checkpoints hold the one-process layout of the weights and of the optimizer state.
// A cut by measured time is agreed over every rank of the job: replicas and tensor ranks whose
// cuts differed would average or combine mismatched parameters.
#include <cstdio>

#include "exadnn/dist/pipeline.h"
#include "exadnn/dist/process_grid.h"
#include "exadnn/ops/factories.h"
#include "mpi_strategies.h"
#include "mpi_strategy.h"
#include "tensor_split.h"

namespace exadnn::train::internal {
namespace {

class PipelineStrategy : public ModelSplitStrategy {
 public:
  PipelineStrategy(const MpiSpec& spec, const ParallelSpec& parallel)
      : ModelSplitStrategy(spec, {dist::Communicator::world().size() / parallel.model_ranks(),
                                  parallel.pipeline, parallel.tensor}),
        parallel_(parallel) {}
  void see_examples(const Shape& example, int64_t batch_size) override {
    example_ = example;
    batch_size_ = batch_size;
  }
  std::unique_ptr<optim::Optimizer> make_optimizer(const std::shared_ptr<nn::Module>& model,
                                                   const MakeOptimizer& make) override {
    take_model(model, "pipeline");
    if (grid_.shape().tensor > 1) split_ = std::make_unique<TensorSplit>(whole_, grid_);
    piped_ = split_ ? split_->model() : whole_;
    std::vector<size_t> cuts(parallel_.boundaries.begin(), parallel_.boundaries.end());
    dist::PipelineOptions options = dist::PipelineOptions()
                                        .micro_batches(parallel_.micro_batches)
                                        .schedule(dist::parse_pipeline_schedule(parallel_.schedule))
                                        .recompute(parallel_.recompute)
                                        .boundaries(cuts);
    if (parallel_.balance == "measured")
      options.balance_by(sample_micro_batch()).measured_over(world_);
    pipe_ = std::make_unique<dist::PipelineParallel>(*piped_, grid_.pipeline(), options);
    for (size_t i = 0; i < pipe_->first_layer(); ++i)
      first_param_ += (*piped_)[i]->parameters().size();
    return make(pipe_->stage().parameters());
  }
  // The model is in place (a resumed checkpoint's weights too): split layers take their blocks.
  void attach(const std::shared_ptr<nn::Module>&, const TrainingRecipe&) override {
    if (split_) split_->take_blocks();
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
    piped_->load_state_dict(pipe_->full_state_dict());  // for the root's score and checkpoint
    if (split_) split_->gather_into_whole();
    return combine_replicas(mine);
  }
  // The one-process layout: every parameter's entries, this stage's filled in, summed over the
  // stages (the other stages' entries are zeros here), then split ones gathered over the tensor
  // ranks.
  StateDict optimizer_state(const optim::Optimizer& opt) override {
    const StateDict mine = opt.state_dict();
    const std::vector<Tensor> all = piped_->parameters();
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
    return split_ ? split_->gather_optimizer_state(out) : out;
  }
  void load_optimizer_state(optim::Optimizer& opt, const StateDict& whole) override {
    const StateDict state = split_ ? split_->block_optimizer_state(whole) : whole;
    StateDict mine;  // this stage's entries (its tensor rank's blocks), numbered from 0
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
    return detail::cat(
        world_.size(), " ranks: ", parallel_.pipeline, "-stage pipeline (", parallel_.schedule,
        ", ", parallel_.micro_batches,
        parallel_.micro_batches == 1 ? " micro-batch" : " micro-batches", "; layers [",
        pipe_ ? pipe_->first_layer() : 0, ", ", pipe_ ? pipe_->end_layer() : 0, ") of ",
        whole_ ? whole_->size() : 0, " on rank 0, ",
        parameters_held(pipe_ ? pipe_->stage().parameters() : std::vector<Tensor>{}), "; ",
        stage_cut(), ")", tensor_split(), " × ", grid_.shape().data, " data-parallel");
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

  // " × 2-way tensor parallel (1 linear run split)", or nothing.
  std::string tensor_split() const {
    if (grid_.shape().tensor == 1) return "";
    const size_t runs = split_ ? split_->runs() : 0;
    return detail::cat(" × ", grid_.shape().tensor, "-way tensor parallel (", runs,
                       runs == 1 ? " linear run" : " linear runs", " split)");
  }

  ParallelSpec parallel_;
  std::unique_ptr<TensorSplit> split_;     // with parallel.tensor > 1
  std::shared_ptr<nn::Sequential> piped_;  // what the stages cut: the split model, or the whole
  std::unique_ptr<dist::PipelineParallel> pipe_;
  size_t first_param_ = 0;  // this stage's first parameter in the (split) model's order
  Shape example_;
  int64_t batch_size_ = 0;
};

}  // namespace

std::unique_ptr<Strategy> make_pipeline_strategy(const MpiSpec& spec,
                                                 const ParallelSpec& parallel) {
  return std::make_unique<PipelineStrategy>(spec, parallel);
}

}  // namespace exadnn::train::internal
