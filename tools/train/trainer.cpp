#include "trainer.h"

#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "distribution.h"
#include "exadnn/data/data_loader.h"
#include "exadnn/data/validate.h"
#include "exadnn/exadnn.h"
#include "exadnn/io/checkpoint.h"
#include "exadnn/io/checkpoint_fields.h"
#include "exadnn/train/datasets.h"
#include "exadnn/train/loss_watch.h"
#include "exadnn/train/losses.h"
#include "exadnn/train/memory_budget.h"
#include "exadnn/train/model_builder.h"
#include "exadnn/train/optimizers.h"
#include "exadnn/train/output_files.h"
#include "exadnn/train/resume_point.h"
#include "exadnn/train/schedulers.h"
#include "plot.h"
#include "progress.h"

namespace exadnn::cli {

using train::available_memory_bytes;
using train::build_model;
using train::check_output_files;
using train::EpochRecord;
using train::history_json;
using train::LossWatch;
using train::MemoryBudget;
using train::read_resume_point;
using train::ResumePoint;

namespace {

std::unique_ptr<optim::Optimizer> make_optimizer(const OptimizerSpec& o,
                                                 std::vector<Tensor> params) {
  return train::optimizers().at(o.name).make(std::move(params), o);  // the config checked the name
}

// The config's learning-rate schedule over `epochs` epochs (none: nullptr).
std::unique_ptr<optim::LRScheduler> make_scheduler(const SchedulerSpec& s, optim::Optimizer& opt,
                                                   int64_t epochs) {
  if (s.name == "none") return nullptr;
  return train::schedulers().at(s.name).make(opt, s, epochs);
}

Tensor compute_loss(const std::string& loss, const Tensor& output, const Tensor& target) {
  return train::losses().at(loss)(output, target);  // the config checked the name
}

// Fraction of test examples whose argmax matches the label.
double accuracy(nn::Module& model, const TrainingData& data, int64_t batch_size,
                Device device = Device::cpu()) {
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

double peak_rss_mb() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return static_cast<double>(usage.ru_maxrss) / 1024.0;  // ru_maxrss is in KiB on Linux
}

// The autocast dtype of config.precision (f32: none).
DType autocast_for(const std::string& precision) {
  return precision == "bf16" ? DType::bf16 : precision == "fp16" ? DType::f16 : DType::f32;
}

// The whole training state, for checkpoints.
StateDict training_state(const nn::Module& model, const StateDict& optimizer_state,
                         const optim::LRScheduler* scheduler, const optim::GradScaler& scaler) {
  StateDict s;
  s.merge(model.state_dict(), "model.");
  s.merge(optimizer_state, "optimizer.");
  if (scheduler) s.merge(scheduler->state_dict(), "scheduler.");
  if (scaler.options().enabled()) s.merge(scaler.state_dict(), "scaler.");
  const Generator& g = default_generator();
  s.insert("rng", from_vector<int64_t>(
                      {static_cast<int64_t>(g.seed()), static_cast<int64_t>(g.offset())}));
  return s;
}

void write_metrics(const std::string& path, const TrainConfig& config,
                   const std::vector<EpochRecord>& epochs, double final_accuracy, int ranks) {
  nlohmann::json j;
  j["test_accuracy"] = final_accuracy;
  std::vector<double> rates;
  for (const auto& e : epochs) rates.push_back(e.samples_per_second);
  std::sort(rates.begin(), rates.end());
  const size_t n = rates.size();
  j["samples_per_second"] =
      n == 0 ? 0.0 : (n % 2 ? rates[n / 2] : 0.5 * (rates[n / 2 - 1] + rates[n / 2]));
  j["epochs"] = nlohmann::json::array();
  for (const auto& e : epochs)
    j["epochs"].push_back({{"epoch", e.epoch},
                           {"train_loss", e.train_loss},
                           {"test_accuracy", e.test_accuracy},
                           {"samples_per_second", e.samples_per_second},
                           {"seconds", e.seconds}});
  j["threads"] = get_num_threads();
  j["ranks"] = ranks;
  j["peak_rss_mb"] = peak_rss_mb();
  j["batch_size"] = config.data.batch_size;
  std::ofstream out(path);
  EXADNN_CHECK(out.good(), "train", "cannot write metrics to ", path);
  out << j.dump(2) << '\n';
}

}  // namespace

namespace {

// Integer targets must be classes the model scores: [0, the width of its output).
void check_labels(nn::Module& model, const TrainingData& data, const DataSpec& d) {
  if (is_floating(data.train->target_dtype())) return;  // regression targets
  NoGradGuard no_grad;
  Generator unused;
  Tensor x = data.train->get(0).inputs;  // datasets of 0 examples were refused at load time
  if (data.transform) x = data.transform->apply(x, unused);
  model.eval();
  const int64_t classes = model.forward(x).size(-1);
  model.train();
  const train::DatasetKind& kind = train::datasets().at(d.dataset);
  data::check_class_labels(*data.train, classes, kind.label_source(d, true));
  data::check_class_labels(*data.test, classes, kind.label_source(d, false));
}

}  // namespace

double train(const TrainConfig& config, const TrainOptions& options) {
  if (config.threads > 0) set_num_threads(config.threads);
  manual_seed(config.seed);
  // distributed: {mode: allreduce | param_server}: this process is one rank of an MPI job.
  const std::unique_ptr<Distribution> distribution = make_distribution(config.mpi);
  const bool root = distribution->is_root();  // prints, evaluates, writes files
  if (root) check_output_files(options);      // before hours of training, not after
  const TrainingData data = load_training_data(config.data);
  MemoryBudget budget(config.data.batch_size, MemoryBudget::optimizer_buffers(config.optimizer),
                      available_memory_bytes());
  auto model = build_model(config.model, data.train->input_shape(), &budget);
  check_labels(*model, data, config.data);             // before model->to(device): one CPU forward
  const Device device = Device::parse(config.device);  // device: cpu | cuda | cuda:N
  model->to(device);                                   // before the optimizer takes the parameters
  auto opt = make_optimizer(config.optimizer, model->parameters());
  // scheduler: the optimizer's rate for each epoch (stepped once an epoch is over).
  const auto scheduler = make_scheduler(config.scheduler, *opt, config.epochs);
  // precision: bf16 | fp16 — the forward pass under autocast; fp16 scales the loss.
  const DType autocast_dtype = autocast_for(config.precision);
  // fp16 with allreduce: every rank skips the same steps (one overflow verdict for the job).
  optim::GradScaler scaler(
      optim::GradScalerOptions()
          .enabled(config.precision == "fp16")
          .overflow_agreement([&](bool f) { return distribution->any_rank(f); }));
  if (root)
    std::printf("model: %lld parameters\n%s\n", static_cast<long long>(model->parameter_count()),
                model->repr().c_str());
  if (root)
    std::printf("data: %lld training / %lld test examples of shape %s; batch %lld; %d threads\n",
                static_cast<long long>(data.train->size()),
                static_cast<long long>(data.test->size()), data.train->input_shape().str().c_str(),
                static_cast<long long>(config.data.batch_size), get_num_threads());
  if (root && scheduler)
    std::printf("learning rate: %s\n", train::schedulers()
                                           .at(config.scheduler.name)
                                           .describe(config.scheduler, opt->lr(), config.epochs)
                                           .c_str());

  namespace fs = std::filesystem;
  const std::string last = options.checkpoint_dir.empty()
                               ? ""
                               : (fs::path(options.checkpoint_dir) / "last.ckpt").string();
  int64_t first_epoch = 1;
  std::vector<EpochRecord> history;
  StateDict resumed_optimizer;  // the checkpoint's optimizer state (--resume)
  if (options.resume) {
    EXADNN_CHECK(!last.empty(), "train", "--resume needs --checkpoint-dir");
    const io::Checkpoint ckpt = io::load_checkpoint(last);
    model->load_state_dict(io::checkpoint_state(ckpt, "model.", model->state_dict()));
    resumed_optimizer = ckpt.tensors.with_prefix_removed("optimizer.");
    try {  // every mode keeps the layout of this one optimizer over the whole model
      opt->load_state_dict(resumed_optimizer);
    } catch (const Error& e) {
      throw Error("train", detail::cat(last, ": the optimizer state does not fit this run's ",
                                       config.optimizer.name, " optimizer (", e.what(), ")"));
    }
    if (scheduler) {
      const StateDict state = ckpt.tensors.with_prefix_removed("scheduler.");
      EXADNN_CHECK(!state.empty(), "train", last,
                   " holds no learning-rate schedule; this run's "
                   "config asks for the '",
                   config.scheduler.name, "' one");
      scheduler->load_state_dict(io::checkpoint_state(ckpt, "scheduler.", scheduler->state_dict()));
    }
    if (scaler.options().enabled())
      scaler.load_state_dict(io::checkpoint_state(ckpt, "scaler.", scaler.state_dict()));
    const ResumePoint point = read_resume_point(ckpt);
    default_generator().set_state(point.rng_seed, point.rng_offset);
    first_epoch = point.epoch + 1;
    history = point.history;
    if (root)
      std::printf("resumed from %s after epoch %lld\n", last.c_str(),
                  static_cast<long long>(first_epoch - 1));
  }

  data::DataLoader loader(data.train, distribution->shard(data::DataLoaderOptions()
                                                              .batch_size(config.data.batch_size)
                                                              .shuffle(config.data.shuffle)
                                                              .seed(config.seed)
                                                              .transform(data.transform)));
  // distributed: {mode: hogwild | threads_locked | threads_sync}: epochs run on worker threads.
  std::unique_ptr<async::AsyncTrainer> hogwild;
  if (config.hogwild.enabled)
    hogwild = make_hogwild_trainer(
        config.hogwild, model, [&] { return build_model(config.model, data.train->input_shape()); },
        [&](std::vector<Tensor> p) { return make_optimizer(config.optimizer, std::move(p)); },
        [&](nn::Module& m, const data::Batch& b) {
          const precision::Autocast autocast(autocast_dtype);  // bf16 (the config refuses fp16)
          return compute_loss(config.loss, m.forward(b.inputs), b.targets);
        });
  distribution->attach(*model, [&](std::vector<Tensor> p) {
    return make_optimizer(config.optimizer, std::move(p));
  });
  if (options.resume) distribution->restore_optimizer_state(resumed_optimizer);
  if (root && distribution->ranks() > 1)
    std::printf("distributed: %s\n", distribution->describe().c_str());
  if (!distribution->trains()) {  // a parameter server: applies the workers' updates, then done
    distribution->serve();
    return 0.0;
  }
  Progress progress(isatty(STDOUT_FILENO) != 0, !root);
  LossWatch loss_watch;  // a NaN or infinite loss ends the run with an error
  double final_accuracy = history.empty() ? 0.0 : history.back().test_accuracy;
  for (int64_t epoch = first_epoch; epoch <= config.epochs; ++epoch) {
    loader.set_epoch(epoch - 1);
    progress.start_epoch(epoch, config.epochs, loader.batches_per_epoch());
    const auto start = std::chrono::steady_clock::now();
    double loss_sum = 0.0;
    int64_t batches = 0, examples = 0;
    if (hogwild) {
      const async::EpochStats stats = hogwild->train_epoch(loader, epoch - 1);
      loss_sum = stats.loss * static_cast<double>(stats.batches);
      batches = stats.batches;
      examples = stats.samples;
      loss_watch.observe_epoch(stats.loss, epoch);
    } else
      distribution->for_each_batch(loader, epoch - 1, [&](const data::Batch& batch) {
        Tensor loss;
        {
          const precision::Autocast autocast(autocast_dtype);  // precision: bf16 | fp16
          loss = compute_loss(config.loss, model->forward(batch.inputs.to(device)),
                              batch.targets.to(device));
        }
        opt->zero_grad();
        scaler.scale(loss).backward();  // fp16: dynamic loss scaling; otherwise pass-throughs
        const bool skipped = !distribution->step(*opt, scaler);
        scaler.update();
        const double value = loss.item<double>();
        loss_watch.observe(value, epoch, batches + 1, skipped);
        loss_sum += value;
        examples += batch.size();
        progress.update(batches++, batch.size(), value);
      });
    const double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    // Summed over the ranks that train (samples/s is the job's, over its slowest rank's time).
    const EpochTotals totals = distribution->combine({loss_sum, batches, examples, seconds});
    if (scheduler) scheduler->step();  // the next epoch's rate (saved with the optimizer below)
    // What the checkpoint keeps of the optimizer (param_server: gathered from the servers, which
    // also hands every worker their current parameters).
    const StateDict optimizer_state =
        last.empty() ? StateDict() : distribution->optimizer_state(*opt);
    if (root) {
      const precision::Autocast autocast(autocast_dtype);
      // Scored in training-sized batches: a larger one only raises the peak memory (CNN, batch
      // 1000:
      // about +250 MB of activations).
      final_accuracy = accuracy(*model, data, config.data.batch_size, device);
    }
    const EpochRecord record{
        epoch, totals.loss_sum / static_cast<double>(std::max<int64_t>(totals.batches, 1)),
        final_accuracy, static_cast<double>(totals.examples) / totals.seconds, totals.seconds};
    history.push_back(record);
    progress.end_epoch(record.train_loss, record.test_accuracy, record.samples_per_second, seconds);
    if (!last.empty() && root) {
      io::save_checkpoint(last, training_state(*model, optimizer_state, scheduler.get(), scaler),
                          {{"epoch", std::to_string(epoch)},
                           {"config", config.source},
                           {"history", history_json(history)},
                           {"exadnn_version", version()}});
    }
  }
  distribution->end_training();
  if (!root) return final_accuracy;
  std::printf("final test accuracy: %.2f%%\n", 100.0 * final_accuracy);
  if (!options.metrics_out.empty())
    write_metrics(options.metrics_out, config, history, final_accuracy, distribution->ranks());
  if (!options.plot.empty()) {
    std::vector<double> losses, accuracies;
    for (const auto& e : history) {
      losses.push_back(e.train_loss);
      accuracies.push_back(e.test_accuracy);
    }
    write_training_plot(options.plot, losses, accuracies);
  }
  return final_accuracy;
}

double evaluate_checkpoint(const std::string& checkpoint_path, int64_t batch_size) {
  const io::Checkpoint ckpt = io::load_checkpoint(checkpoint_path);
  EXADNN_CHECK(ckpt.metadata.count("config"), "eval", checkpoint_path,
               " has no training config (was it written by exadnn train?)");
  const TrainConfig config =
      parse_config(ckpt.metadata.at("config"), checkpoint_path + " (config)");
  const TrainingData data = load_training_data(config.data);
  auto model = build_model(config.model, data.test->input_shape());
  model->load_state_dict(io::checkpoint_state(ckpt, "model.", model->state_dict()));
  const double acc = accuracy(*model, data, batch_size);
  std::printf("%s: test accuracy %.2f%% on %lld examples\n", checkpoint_path.c_str(), 100.0 * acc,
              static_cast<long long>(data.test->size()));
  return acc;
}

}  // namespace exadnn::cli
