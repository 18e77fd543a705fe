// Trainer: the training loop of a config — epochs of steps through the config's strategy (one
// process, MPI ranks or threads) at its precision, evaluation after each epoch, checkpoints and
// resume, metrics — with hooks a program attaches instead of copying the loop.
//
//   train::Trainer trainer(train::load_config("mlp.yaml"), {.checkpoint_dir = "ckpt"});
//   trainer.on_epoch([](const train::EpochRecord& e) { std::printf("%g\n", e.train_loss); });
//   const double accuracy = trainer.fit();
//
// A program that has its own model or data hands them in TrainerParts; the config then supplies
// the rest (optimizer, schedule, precision, strategy, epochs, batch size, seed).
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "exadnn/nn/module.h"
#include "exadnn/optim/lr_scheduler.h"
#include "exadnn/optim/optimizer.h"
#include "exadnn/train/config.h"
#include "exadnn/train/datasets.h"
#include "exadnn/train/losses.h"
#include "exadnn/train/options.h"
#include "exadnn/train/resume_point.h"
#include "exadnn/train/strategy.h"

namespace exadnn::train {

/// The test score recorded after each epoch (EpochRecord::test_accuracy); higher is better.
using ScoreFunction = std::function<double(nn::Module& model, const TrainingData& data)>;

/// What a program brings of its own; each part left empty is built from the config.
struct TrainerParts {
  std::shared_ptr<nn::Module> model;  ///< empty: build_model(config.model, ...)
  /// A new model of the same architecture (threaded strategies); empty: from config.model.
  std::function<std::shared_ptr<nn::Module>()> make_model;
  TrainingData data;  ///< train empty: load_training_data(config.data)
  /// The names of `data`'s classes in label order, for the metrics (config.data.class_names,
  /// when given, wins); checked against the model's classes like data.class_names.
  std::vector<std::string> class_names;
  LossFunction loss;                   ///< empty: losses().at(config.loss)
  std::unique_ptr<Strategy> strategy;  ///< empty: make_strategy(config)
  ScoreFunction score;                 ///< empty: classification accuracy (classification_accuracy)
};

/// One step of the loop, as the on_step hooks see it (the root and every other rank).
struct StepEvent {
  int64_t epoch;     ///< 1-based
  int64_t index;     ///< the step's place in this rank's epoch, from 0
  int64_t examples;  ///< in the batch
  double loss;       ///< the batch's loss
  bool skipped;      ///< fp16: the loss scaler skipped this step (an overflow)
};

class Trainer {
 public:
  /// Sets up the run: threads and seed, the strategy, the output checks (before anything slow),
  /// the data, the model (memory-checked), the optimizer and schedule, the loss scaler, and with
  /// options.resume the state of checkpoint_dir/last.ckpt. Errors name what is wrong.
  explicit Trainer(TrainConfig config, TrainOptions options = {}, TrainerParts parts = {});
  ~Trainer();
  Trainer(const Trainer&) = delete;
  Trainer& operator=(const Trainer&) = delete;

  /// Before each epoch: its number (1-based), the run's last epoch, this rank's batches in it.
  void on_epoch_start(std::function<void(int64_t epoch, int64_t epochs, int64_t batches)> hook);
  /// After each step the Trainer runs (the threaded strategies' steps are their workers').
  void on_step(std::function<void(const StepEvent&)> hook);
  /// After each epoch, once its figures are combined over the ranks and the root scored it.
  void on_epoch(std::function<void(const EpochRecord&)> hook);
  /// On the root, after each checkpoint is written: its path and epoch.
  void on_checkpoint(std::function<void(const std::string& path, int64_t epoch)> hook);

  /// Trains the epochs left (all of them, or those after a resumed checkpoint); writes the
  /// checkpoint after each and the metrics at the end (root). Returns the last test score (the
  /// root's; parameter-server ranks serve the workers and return 0). A non-finite loss stops
  /// the run with an Error naming the epoch and step.
  double fit();
  /// The test score of the model now (the root's figure; every rank may call it).
  double evaluate();

  const TrainConfig& config() const;
  nn::Module& model();
  const std::shared_ptr<nn::Module>& model_ptr() const;
  const TrainingData& data() const;
  optim::Optimizer& optimizer();
  /// The learning-rate schedule (nullptr: none).
  optim::LRScheduler* scheduler();
  Strategy& strategy();
  /// Whether this process prints, evaluates and writes files.
  bool is_root() const;
  /// The epoch a resumed run continues after (0: a fresh run).
  int64_t resumed_epoch() const;
  /// Every finished epoch, resumed ones included.
  const std::vector<EpochRecord>& history() const;

 private:
  struct Run;
  std::unique_ptr<Run> run_;
};

/// Fraction of the test examples whose argmax over the model's output matches the label, in
/// batches of `batch_size` (the default score; evaluation mode, no gradients).
double classification_accuracy(nn::Module& model, const TrainingData& data, int64_t batch_size,
                               Device device = Device::cpu());

/// Scores the model saved in a checkpoint written by a Trainer on its config's test set. With
/// `metrics_out`, a classifier's per-class figures are written there too (the JSON of
/// TrainOptions::metrics_out without epochs) and its confusion matrix beside it (.confusion.png),
/// classes named as the run named them.
struct CheckpointScore {
  double accuracy;
  int64_t examples;
};
CheckpointScore evaluate_checkpoint(const std::string& checkpoint_path, int64_t batch_size = 1000,
                                    const std::string& metrics_out = "");

}  // namespace exadnn::train
