#include "exadnn/train/trainer.h"

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <map>

#include "exadnn/backend/denormals.h"
#include "exadnn/data/validate.h"
#include "exadnn/exadnn.h"
#include "exadnn/io/checkpoint.h"
#include "exadnn/io/checkpoint_fields.h"
#include "exadnn/train/class_balance.h"
#include "exadnn/train/class_metrics.h"
#include "exadnn/train/loss_watch.h"
#include "exadnn/train/memory_budget.h"
#include "exadnn/train/model_builder.h"
#include "exadnn/train/optimizers.h"
#include "exadnn/train/output_files.h"
#include "exadnn/train/schedulers.h"
#include "exadnn/train/strategies.h"
#include "metrics_file.h"

namespace exadnn::train {
namespace {

// The autocast dtype of config.precision (f32: none).
DType autocast_for(const std::string& precision) {
  return precision == "bf16" ? DType::bf16 : precision == "fp16" ? DType::f16 : DType::f32;
}

// Integer targets must be classes the model scores: [0, the width of its output). `source`
// names a split's labels in messages. Returns the number of classes (0: regression targets) and
// the training set's labels (read once, for class_balance too; not read when only the test set
// is scored, as by exadnn eval).
struct Labels {
  int64_t classes = 0;
  std::vector<int64_t> train;
};
enum class LabelSplits { train_and_test, test_only };
Labels check_labels(nn::Module& model, const TrainingData& data,
                    const std::function<std::string(bool train)>& source,
                    LabelSplits splits = LabelSplits::train_and_test) {
  if (is_floating(data.train->target_dtype())) return {};  // regression targets
  NoGradGuard no_grad;
  Generator unused;
  Tensor x = data.train->get(0).inputs;  // datasets of 0 examples were refused at load time
  if (data.transform) x = data.transform->apply(x, unused);
  model.eval();
  const int64_t classes = model.forward(x).size(-1);
  model.train();
  std::vector<int64_t> train;
  if (splits == LabelSplits::train_and_test)
    train = data::check_class_labels(*data.train, classes, source(true));
  if (data.test) data::check_class_labels(*data.test, classes, source(false));
  return {classes, std::move(train)};
}

// The confusion matrix's PNG beside a metrics file: m.json -> m.confusion.png.
std::string confusion_png_path(const std::string& metrics_out) {
  return std::filesystem::path(metrics_out).replace_extension(".confusion.png").string();
}

// The names the run's metrics give its classes: data.class_names, else the program's names for
// its own data, each of which must name every class the model scores (checked before training,
// not after it); else the dataset kind's own when they are as many (never for a program's own
// data, which the config's data section does not describe).
std::vector<std::string> run_class_names(const DataSpec& d, bool own_data,
                                         const std::vector<std::string>& program_names,
                                         int64_t classes) {
  const auto count = [](const std::vector<std::string>& v) {
    return static_cast<int64_t>(v.size());
  };
  const bool from_config = !d.class_names.empty();
  const std::vector<std::string>& given = from_config ? d.class_names : program_names;
  const char* what = from_config ? "data.class_names" : "the program's list of class names";
  if (!given.empty()) {
    EXADNN_CHECK(classes > 0, "train", what, " names ", given.size(),
                 " classes, but this run's targets are values (a regression), not classes");
    EXADNN_CHECK(count(given) == classes, "train", what, " names ", given.size(),
                 " classes, but the model scores ", classes, " (its last layer's outputs)");
    return given;
  }
  if (own_data || classes == 0) return {};
  std::vector<std::string> kind_names = class_names(d);
  return count(kind_names) == classes ? kind_names : std::vector<std::string>{};
}

// The config's loss, class-weighted when class_balance.loss_weights asks for it.
LossFunction config_loss(const TrainConfig& c, const std::vector<int64_t>& labels,
                         int64_t classes) {
  if (!c.class_balance.weighted()) return losses().at(c.loss);
  const std::vector<double> w = class_weights(c.class_balance, labels, classes);
  const Tensor weights = from_vector<double>(w, {classes}).to(DType::f32);
  return
      [weights](const Tensor& o, const Tensor& t) { return weighted_cross_entropy(o, t, weights); };
}

}  // namespace

double classification_accuracy(nn::Module& model, const TrainingData& data, int64_t batch_size,
                               Device device) {
  if (!data.test) return 0.0;
  NoGradGuard no_grad;
  model.eval();
  data::DataLoader loader(
      data.test,
      data::DataLoaderOptions().batch_size(batch_size).shuffle(false).transform(data.transform));
  int64_t correct = 0, total = 0;
  for (const data::Batch& batch : loader) {
    const Tensor predicted = argmax(model.forward(batch.inputs.to(device)), 1);
    correct += sum(eq(predicted, batch.targets.to(DType::i64).to(device))).item<int64_t>();
    total += batch.size();
  }
  model.train();
  return total > 0 ? static_cast<double>(correct) / static_cast<double>(total) : 0.0;
}

// Everything a run holds, in the order the constructor builds it.
struct Trainer::Run {
  TrainConfig config;
  TrainOptions options;
  std::unique_ptr<Strategy> strategy;
  bool root = true;
  TrainingData data;
  std::shared_ptr<nn::Module> model;
  std::function<std::shared_ptr<nn::Module>()> make_model;
  LossFunction loss;
  ScoreFunction score;
  Device device = Device::cpu();
  std::unique_ptr<optim::Optimizer> optimizer;
  std::unique_ptr<optim::LRScheduler> scheduler;
  DType autocast = DType::f32;
  std::unique_ptr<optim::GradScaler> scaler;
  std::string last_checkpoint;  // checkpoint_dir/last.ckpt ("" = none)
  std::string best_checkpoint;  // checkpoint_dir/best.ckpt: the epoch of the highest test score
  int64_t next_epoch = 1;
  int64_t resumed_epoch = 0;
  std::vector<EpochRecord> history;
  std::unique_ptr<data::DataLoader> loader;
  int64_t classes = 0;                        // classes the model scores (0: regression)
  std::vector<std::string> class_names;       // one per class, or none (the metrics' labels)
  std::unique_ptr<BalancedSampler> balanced;  // class_balance.sampling: balanced
  std::function<std::unique_ptr<data::DataLoader>(std::shared_ptr<const data::Dataset>)>
      make_loader;
  std::vector<std::function<void(int64_t, int64_t, int64_t)>> epoch_start_hooks;
  std::vector<std::function<void(const StepEvent&)>> step_hooks;
  std::vector<std::function<void(const EpochRecord&)>> epoch_hooks;
  std::vector<std::function<void(const std::string&, int64_t)>> checkpoint_hooks;

  std::unique_ptr<optim::Optimizer> make_optimizer(std::vector<Tensor> params) const {
    return optimizers().at(config.optimizer.name).make(std::move(params), config.optimizer);
  }
  double score_now() {
    const precision::Autocast autocast_scope(autocast);
    return score(*model, data);
  }
  // The whole training state, for checkpoints.
  StateDict training_state(const StateDict& optimizer_state) const {
    StateDict s;
    s.merge(model->state_dict(), "model.");
    s.merge(optimizer_state, "optimizer.");
    if (scheduler) s.merge(scheduler->state_dict(), "scheduler.");
    if (scaler->options().enabled()) s.merge(scaler->state_dict(), "scaler.");
    const Generator& g = default_generator();
    s.insert("rng", from_vector<int64_t>(
                        {static_cast<int64_t>(g.seed()), static_cast<int64_t>(g.offset())}));
    return s;
  }
  // Loads checkpoint_dir/last.ckpt; returns its optimizer state.
  StateDict resume();
  EpochTotals train_epoch(int64_t epoch, LossWatch& loss_watch);
};

Trainer::Trainer(TrainConfig config, TrainOptions options, TrainerParts parts)
    : run_(std::make_unique<Run>()) {
  Run& r = *run_;
  r.config = std::move(config);
  r.options = std::move(options);
  const TrainConfig& c = r.config;
  if (c.threads > 0) set_num_threads(c.threads);
  manual_seed(c.seed);
  // distributed: {mode: ...}: this process is one rank of an MPI job, or runs worker threads.
  r.strategy = parts.strategy ? std::move(parts.strategy) : make_strategy(c);
  r.root = r.strategy->is_root();             // prints, evaluates, writes files
  if (r.root) check_output_files(r.options);  // before hours of training, not after
  const bool own_data = parts.data.train != nullptr;
  r.data = own_data ? std::move(parts.data) : load_training_data(c.data);
  if (parts.model) {
    r.model = std::move(parts.model);
  } else {
    EXADNN_CHECK(!c.model.empty(), "train", "the config has no model and none was given");
    MemoryBudget budget(c.data.batch_size, MemoryBudget::optimizer_buffers(c.optimizer),
                        available_memory_bytes(), r.strategy->processes_on_node());
    if (c.parallel.spatial > 1) budget.split_images(c.parallel.spatial);
    r.model = build_model(c.model, r.data.train->input_shape(), &budget);
  }
  r.make_model = parts.make_model;
  if (!r.make_model && !c.model.empty())
    r.make_model = [layers = c.model, shape = r.data.train->input_shape()] {
      return std::shared_ptr<nn::Module>(build_model(layers, shape));
    };
  // Before model->to(device): one CPU forward.
  Labels checked = check_labels(*r.model, r.data, [&](bool train) {
    if (own_data) return std::string(train ? "the training set" : "the test set");
    return datasets().at(c.data.dataset).label_source(c.data, train);
  });
  r.classes = checked.classes;
  r.class_names = run_class_names(c.data, own_data, parts.class_names, r.classes);
  r.device = Device::parse(c.device);  // device: cpu | cuda | cuda:N
  r.model->to(r.device);               // before the optimizer takes the parameters
  // class_balance: the training set's labels weigh the loss and/or draw balanced epochs.
  const ClassBalanceSpec& balance = c.class_balance;
  std::vector<int64_t> labels;
  if (balance.weighted() || balance.balanced()) {
    EXADNN_CHECK(r.classes > 0, "train",
                 "class_balance needs class labels; this run's targets are values");
    EXADNN_CHECK(!(parts.loss && balance.weighted()), "train",
                 "class_balance.loss_weights weighs the config's cross_entropy; this program "
                 "brings its own loss");
    labels = std::move(checked.train);
    if (balance.balanced()) r.balanced = std::make_unique<BalancedSampler>(labels, c.seed);
  }
  r.loss = parts.loss ? std::move(parts.loss) : config_loss(c, labels, r.classes);
  r.score = parts.score ? std::move(parts.score)
                        : ScoreFunction([batch = c.data.batch_size, device = r.device](
                                            nn::Module& m, const TrainingData& d) {
                            // Training-sized batches: a larger one only raises the peak memory
                            // (CNN, batch 1000: about +250 MB of activations).
                            return classification_accuracy(m, d, batch, device);
                          });
  // The strategy makes it (parallel.shard: each rank keeps a block of the state; pipeline: its
  // stage's).
  r.strategy->see_examples(r.data.train->input_shape(), c.data.batch_size);
  r.optimizer = r.strategy->make_optimizer(
      r.model, [&r](std::vector<Tensor> p) { return r.make_optimizer(std::move(p)); });
  // scheduler: the optimizer's rate for each epoch (stepped once an epoch is over).
  if (c.scheduler.name != "none")
    r.scheduler = schedulers().at(c.scheduler.name).make(*r.optimizer, c.scheduler, c.epochs);
  // precision: bf16 | fp16 — the forward pass under autocast; fp16 scales the loss, and with
  // allreduce every rank skips the same steps (one overflow verdict for the job).
  r.autocast = autocast_for(c.precision);
  r.scaler = std::make_unique<optim::GradScaler>(
      optim::GradScalerOptions()
          .enabled(c.precision == "fp16")
          .overflow_agreement([s = r.strategy.get()](bool f) { return s->any_rank(f); }));
  if (!r.options.checkpoint_dir.empty()) {
    r.last_checkpoint = (std::filesystem::path(r.options.checkpoint_dir) / "last.ckpt").string();
    r.best_checkpoint = (std::filesystem::path(r.options.checkpoint_dir) / "best.ckpt").string();
  }
  const StateDict resumed_optimizer = r.options.resume ? r.resume() : StateDict();
  // data.stream: the kind's out-of-core stream gives this rank's batches (their own order, which
  // balanced sampling cannot reweigh).
  EXADNN_CHECK(!(r.data.stream && r.balanced), "train",
               "class_balance.sampling: balanced draws examples by index; a streamed training set "
               "(data.stream) is read in its own order (use class_balance.loss_weights)");
  r.make_loader = [&r](std::shared_ptr<const data::Dataset> set) {
    const TrainConfig& cfg = r.config;
    data::DataLoaderOptions options = r.strategy->shard(data::DataLoaderOptions()
                                                            .batch_size(cfg.data.batch_size)
                                                            .shuffle(cfg.data.shuffle)
                                                            .drop_last(cfg.data.drop_last)
                                                            .seed(cfg.seed)
                                                            .transform(r.data.transform));
    if (r.data.stream)
      return std::make_unique<data::DataLoader>(std::move(set), r.data.stream(options), options);
    return std::make_unique<data::DataLoader>(std::move(set), std::move(options));
  };
  r.loader = r.make_loader(r.balanced ? r.balanced->epoch_view(r.data.train, 0) : r.data.train);
  EXADNN_CHECK(!r.config.data.drop_last || r.loader->batches_per_epoch() > 0, "data",
               "data.drop_last: this rank's share of the training set is shorter than one batch "
               "of ",
               r.config.data.batch_size, " examples, so an epoch would take no step");
  TrainingRecipe recipe;
  recipe.make_optimizer = [&r](std::vector<Tensor> p) { return r.make_optimizer(std::move(p)); };
  recipe.make_model = r.make_model;
  recipe.batch_loss = [&r](nn::Module& m, const data::Batch& b) {
    const precision::Autocast autocast_scope(r.autocast);
    return r.loss(m.forward(b.inputs), b.targets);
  };
  r.strategy->attach(r.model, recipe);
  if (r.options.resume) r.strategy->restore_optimizer_state(resumed_optimizer);
}

Trainer::~Trainer() = default;

StateDict Trainer::Run::resume() {
  EXADNN_CHECK(!last_checkpoint.empty(), "train", "--resume needs --checkpoint-dir");
  const std::string& last = last_checkpoint;
  const io::Checkpoint ckpt = io::load_checkpoint(last);
  model->load_state_dict(io::checkpoint_state(ckpt, "model.", model->state_dict()));
  StateDict optimizer_state = ckpt.tensors.with_prefix_removed("optimizer.");
  try {  // every strategy keeps the layout of this one optimizer over the whole model
    strategy->load_optimizer_state(*optimizer, optimizer_state);
  } catch (const Error& e) {
    throw Error("train", exadnn::detail::cat(last, ": the optimizer state does not fit this run's ",
                                             config.optimizer.name, " optimizer (", e.what(), ")"));
  }
  if (scheduler) {
    EXADNN_CHECK(!ckpt.tensors.with_prefix_removed("scheduler.").empty(), "train", last,
                 " holds no learning-rate schedule; this run's config asks for the '",
                 config.scheduler.name, "' one");
    scheduler->load_state_dict(io::checkpoint_state(ckpt, "scheduler.", scheduler->state_dict()));
  }
  if (scaler->options().enabled())
    scaler->load_state_dict(io::checkpoint_state(ckpt, "scaler.", scaler->state_dict()));
  const ResumePoint point = read_resume_point(ckpt);
  default_generator().set_state(point.rng_seed, point.rng_offset);
  next_epoch = point.epoch + 1;
  resumed_epoch = point.epoch;
  history = point.history;
  return optimizer_state;
}

EpochTotals Trainer::Run::train_epoch(int64_t epoch, LossWatch& loss_watch) {
  int64_t index = 0;  // steps this rank ran in the epoch
  EpochTotals totals = strategy->train_epoch(*loader, epoch - 1, [&](const data::Batch& batch) {
    double value = 0;
    if (strategy->runs_forward_backward()) {  // parallel.pipeline, shard: 3: the strategy's
      optimizer->zero_grad();
      const precision::Autocast autocast_scope(autocast);  // bf16 (shard: 3); fp32 otherwise
      value = strategy->forward_backward(batch, loss);
    } else {
      Tensor loss_value;
      {
        const precision::Autocast autocast_scope(autocast);  // precision: bf16 | fp16
        loss_value = loss(model->forward(batch.inputs.to(device)), batch.targets.to(device));
      }
      optimizer->zero_grad();
      scaler->scale(loss_value).backward();  // fp16: dynamic loss scaling; else pass-throughs
      value = loss_value.item<double>();
    }
    const bool skipped = !strategy->step(*optimizer, *scaler);
    scaler->update();
    loss_watch.observe(value, epoch, index + 1, skipped);
    const StepEvent event{epoch, index++, batch.size(), value, skipped};
    for (const auto& hook : step_hooks) hook(event);
    return value;
  });
  // The threaded strategies' steps are their workers': the epoch's mean is what can be checked.
  if (index == 0 && totals.batches > 0)
    loss_watch.observe_epoch(totals.loss_sum / static_cast<double>(totals.batches), epoch);
  return totals;
}

double Trainer::fit() {
  Run& r = *run_;
  if (!r.strategy->trains()) {  // a parameter server: applies the workers' updates, then done
    r.strategy->serve();
    return 0.0;
  }
  // Subnormals flushed while training (backend/denormals.h), the caller's setting back after.
  const FlushDenormalsScope flush(r.config.flush_denormals);
  LossWatch loss_watch;  // a NaN or infinite loss ends the run with an error
  double final_score = r.history.empty() ? 0.0 : r.history.back().test_accuracy;
  for (; r.next_epoch <= r.config.epochs; ++r.next_epoch) {
    const int64_t epoch = r.next_epoch;
    if (r.balanced) r.loader = r.make_loader(r.balanced->epoch_view(r.data.train, epoch - 1));
    r.loader->set_epoch(epoch - 1);
    for (const auto& hook : r.epoch_start_hooks)
      hook(epoch, r.config.epochs, r.loader->batches_per_epoch());
    const auto start = std::chrono::steady_clock::now();
    EpochTotals mine = r.train_epoch(epoch, loss_watch);
    mine.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    // Summed over the ranks that train (samples/s is the job's, over its slowest rank's time).
    const EpochTotals totals = r.strategy->combine(mine);
    if (r.scheduler) r.scheduler->step();  // the next epoch's rate (saved with the optimizer)
    // What the checkpoint keeps of the optimizer (param_server: gathered from the servers, which
    // also hands every worker their current parameters).
    const StateDict optimizer_state =
        r.last_checkpoint.empty() ? StateDict() : r.strategy->optimizer_state(*r.optimizer);
    if (r.root) final_score = r.score_now();
    const EpochRecord record{
        epoch, totals.loss_sum / static_cast<double>(std::max<int64_t>(totals.batches, 1)),
        final_score, static_cast<double>(totals.examples) / totals.seconds, totals.seconds};
    r.history.push_back(record);
    for (const auto& hook : r.epoch_hooks) hook(record);
    if (!r.last_checkpoint.empty() && r.root) {
      const StateDict state = r.training_state(optimizer_state);
      const std::map<std::string, std::string> metadata{{"epoch", std::to_string(epoch)},
                                                        {"config", r.config.source},
                                                        {"history", history_json(r.history)},
                                                        {"exadnn_version", version()}};
      io::save_checkpoint(r.last_checkpoint, state, metadata);
      // The best epoch so far (higher score is better; the first of equal ones) is kept too.
      const bool best = std::all_of(r.history.begin(), r.history.end() - 1, [&](const auto& e) {
        return record.test_accuracy > e.test_accuracy;
      });
      if (best) io::save_checkpoint(r.best_checkpoint, state, metadata);
      for (const auto& hook : r.checkpoint_hooks) hook(r.last_checkpoint, epoch);
    }
  }
  r.strategy->end_training();
  if (r.root && !r.options.metrics_out.empty()) {
    // Classification: the figures per class, and the confusion matrix beside the metrics file.
    std::unique_ptr<ClassMetrics> per_class;
    std::string png;
    if (r.classes > 0 && r.data.test) {
      const precision::Autocast autocast_scope(r.autocast);
      per_class = std::make_unique<ClassMetrics>(
          evaluate_classes(*r.model, r.data, r.config.data.batch_size, r.classes, r.device));
      if (!r.class_names.empty()) per_class->name_classes(r.class_names);
      png = confusion_png_path(r.options.metrics_out);
      write_confusion_png(png, *per_class);
    }
    internal::write_metrics(r.options.metrics_out, r.history, final_score, r.strategy->ranks(),
                            r.config.data.batch_size, per_class.get(), png);
  }
  return final_score;
}

double Trainer::evaluate() {
  return run_->score_now();
}

void Trainer::on_epoch_start(std::function<void(int64_t, int64_t, int64_t)> hook) {
  run_->epoch_start_hooks.push_back(std::move(hook));
}
void Trainer::on_step(std::function<void(const StepEvent&)> hook) {
  run_->step_hooks.push_back(std::move(hook));
}
void Trainer::on_epoch(std::function<void(const EpochRecord&)> hook) {
  run_->epoch_hooks.push_back(std::move(hook));
}
void Trainer::on_checkpoint(std::function<void(const std::string&, int64_t)> hook) {
  run_->checkpoint_hooks.push_back(std::move(hook));
}

const TrainConfig& Trainer::config() const {
  return run_->config;
}
nn::Module& Trainer::model() {
  return *run_->model;
}
const std::shared_ptr<nn::Module>& Trainer::model_ptr() const {
  return run_->model;
}
const TrainingData& Trainer::data() const {
  return run_->data;
}
optim::Optimizer& Trainer::optimizer() {
  return *run_->optimizer;
}
optim::LRScheduler* Trainer::scheduler() {
  return run_->scheduler.get();
}
Strategy& Trainer::strategy() {
  return *run_->strategy;
}
bool Trainer::is_root() const {
  return run_->root;
}
int64_t Trainer::resumed_epoch() const {
  return run_->resumed_epoch;
}
const std::vector<EpochRecord>& Trainer::history() const {
  return run_->history;
}

CheckpointScore evaluate_checkpoint(const std::string& checkpoint_path, int64_t batch_size,
                                    const std::string& metrics_out) {
  TrainOptions outputs;
  outputs.metrics_out = metrics_out;
  check_output_files(outputs);  // before the evaluation, which can take a while
  const io::Checkpoint ckpt = io::load_checkpoint(checkpoint_path);
  EXADNN_CHECK(ckpt.metadata.count("config"), "eval", checkpoint_path,
               " has no training config (was it written by a Trainer, e.g. exadnn train?)");
  const TrainConfig config =
      parse_config(ckpt.metadata.at("config"), checkpoint_path + " (config)");
  const TrainingData data = load_training_data(config.data);
  auto model = build_model(config.model, data.test->input_shape());
  model->load_state_dict(io::checkpoint_state(ckpt, "model.", model->state_dict()));
  if (metrics_out.empty())
    return {classification_accuracy(*model, data, batch_size), data.test->size()};
  const DatasetKind& kind = datasets().at(config.data.dataset);
  const auto source = [&](bool train) { return kind.label_source(config.data, train); };
  const int64_t classes = check_labels(*model, data, source, LabelSplits::test_only).classes;
  EXADNN_CHECK(classes > 0, "eval", checkpoint_path,
               ": --metrics-out writes per-class figures, but this model's targets are values");
  ClassMetrics per_class = evaluate_classes(*model, data, batch_size, classes);
  const std::vector<std::string> names = run_class_names(config.data, false, {}, classes);
  if (!names.empty()) per_class.name_classes(names);
  const std::string png = confusion_png_path(metrics_out);
  write_confusion_png(png, per_class);
  // One pass over the test set: the per-class figures' top-1 is the accuracy.
  internal::write_metrics(metrics_out, {}, per_class.top1(), 1, batch_size, &per_class, png);
  return {per_class.top1(), data.test->size()};
}

}  // namespace exadnn::train
