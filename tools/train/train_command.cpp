#include "train_command.h"

#include <unistd.h>

#include <cstdio>
#include <filesystem>

#include "exadnn/backend/measured_routes.h"
#include "exadnn/backend/runtime.h"
#include "exadnn/io/plot.h"
#include "exadnn/train/schedulers.h"
#include "exadnn/train/trainer.h"
#include "progress.h"
#include "step_profile.h"

namespace exadnn::cli {

double train(const train::TrainConfig& config, const train::TrainOptions& options) {
  train::Trainer trainer(config, options);
  const bool root = trainer.is_root();  // the other ranks print nothing
  if (root) {
    const train::TrainingData& data = trainer.data();
    std::printf("model: %lld parameters\n%s\n",
                static_cast<long long>(trainer.model().parameter_count()),
                trainer.model().repr().c_str());
    std::printf("data: %lld training / %lld test examples of shape %s; batch %lld; %d threads\n",
                static_cast<long long>(data.train->size()),
                static_cast<long long>(data.test->size()), data.train->input_shape().str().c_str(),
                static_cast<long long>(config.data.batch_size), get_num_threads());
    if (trainer.scheduler())  // the rate the optimizer starts from, after a resume too
      std::printf("learning rate: %s\n",
                  train::schedulers()
                      .at(config.scheduler.name)
                      .describe(config.scheduler, trainer.optimizer().lr(), config.epochs)
                      .c_str());
    if (trainer.resumed_epoch() > 0)
      std::printf("resumed from %s after epoch %lld\n",
                  (std::filesystem::path(options.checkpoint_dir) / "last.ckpt").c_str(),
                  static_cast<long long>(trainer.resumed_epoch()));
    if (trainer.strategy().ranks() > 1)
      std::printf("distributed: %s\n", trainer.strategy().describe().c_str());
  }
  Progress progress(isatty(STDOUT_FILENO) != 0, !root);
  StepProfile profile(options.profile && root);
  trainer.on_epoch_start([&](int64_t epoch, int64_t epochs, int64_t batches) {
    progress.start_epoch(epoch, epochs, batches);
    profile.start_epoch();
  });
  trainer.on_step([&](const train::StepEvent& step) {
    progress.update(step.index, step.examples, step.loss);
    profile.end_step();
  });
  trainer.on_epoch([&](const train::EpochRecord& e) {
    progress.end_epoch(e.train_loss, e.test_accuracy, e.samples_per_second, e.seconds);
    profile.end_epoch();
  });
  const double accuracy = trainer.fit();
  if (!root || !trainer.strategy().trains()) return accuracy;
  std::printf("final test accuracy: %.2f%%\n", 100.0 * accuracy);
  if (const long long busy = measured_routes_not_remembered(); busy > 0)
    std::printf(
        "note: %lld convolution or GEMM problem(s) were measured while other processes used the "
        "cores; their routes served this run but were not remembered, so a rerun may take others "
        "and differ in the last bits (EXADNN_CONV=onednn EXADNN_GEMM=onednn fix every route)\n",
        busy);
  if (!options.plot.empty()) {
    std::vector<double> losses, accuracies;
    for (const auto& e : trainer.history()) {
      losses.push_back(e.train_loss);
      accuracies.push_back(e.test_accuracy);
    }
    io::write_training_plot(options.plot, losses, accuracies);
  }
  return accuracy;
}

double evaluate_checkpoint(const std::string& checkpoint_path, int64_t batch_size,
                           const std::string& metrics_out) {
  const train::CheckpointScore score =
      train::evaluate_checkpoint(checkpoint_path, batch_size, metrics_out);
  std::printf("%s: test accuracy %.2f%% on %lld examples\n", checkpoint_path.c_str(),
              100.0 * score.accuracy, static_cast<long long>(score.examples));
  if (!metrics_out.empty())
    std::printf("per-class metrics: %s, confusion matrix: %s\n", metrics_out.c_str(),
                std::filesystem::path(metrics_out).replace_extension(".confusion.png").c_str());
  return score.accuracy;
}

}  // namespace exadnn::cli
