// Trains a ResNet on generated CBED stacks through exadnn's Trainer and reports held-out top-1,
// top-5 and macro-F1: the crystal system (7 classes) or the space group, optionally with an
// imbalanced training set. The stacks are generated in memory (kinematic by default).
//
//   exadnn_cbed_classify_train --config apps/cbed/configs/cbed_resnet18_system.yaml
//       --materials 60000 --size 32 --metrics-out system.json   (one command line)
//
// With --export FILE.h5 it writes the generated set instead of training (exadnn's `hdf5` dataset
// layout: train/x f32 [N, 3, H, W] on the classifiers' log scale, train/y i64 [N], test/x,
// test/y), a file other frameworks read too (bench/compare_pytorch.sh's cbed_resnet18).
#include <exadnn/exadnn.h>
#include <exadnn/train/class_metrics.h>
#include <exadnn/train/output_files.h>
#include <exadnn/train/trainer.h>
#include <CLI/CLI.hpp>
#include <chrono>
#include <cstdio>
#include <optional>
#include <sstream>

#include "cbed/classify_data.h"

namespace {

// 39 groups over the 7 crystal systems, every centring among them.
const std::vector<int> kDefaultGroups = {1,   2,   3,   4,   5,   14,  15,  16,  19,  33,
                                         62,  63,  70,  75,  76,  85,  88,  123, 139, 141,
                                         143, 146, 148, 160, 166, 167, 168, 173, 176, 186,
                                         191, 194, 195, 198, 205, 221, 225, 227, 229};

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

}  // namespace

int main(int argc, char** argv) {
  exadnn::keep_freed_host_memory();  // a training program: no page faults a step (host_heap.h)
  CLI::App app{"Train a ResNet on generated CBED stacks (crystal system or space group)"};
  std::string config_path = "apps/cbed/configs/cbed_resnet18_system.yaml", task = "system",
              mode = "kinematic", metrics_out, export_path;
  std::vector<std::string> overrides;
  std::vector<int> groups = kDefaultGroups;
  cbed::ClassifyDataOptions o;
  int size = 32;
  o.generate.stack.detector_mrad = 2.0;
  app.add_option("--config", config_path, "training config (model, optimizer, epochs, ...)");
  app.add_option("--set", overrides, "config override key=value (repeatable)");
  app.add_option("--task", task, "system or group")->check(CLI::IsMember({"system", "group"}));
  app.add_option("--mode", mode, "kinematic or multislice")
      ->check(CLI::IsMember({"kinematic", "multislice"}));
  app.add_option("--groups", groups, "space groups the materials cycle through");
  app.add_option("--materials", o.materials, "candidate materials (ids 0..N-1)");
  app.add_option("--size", size, "pattern size in pixels");
  app.add_option("--detector-mrad", o.generate.stack.detector_mrad, "mrad per pixel");
  app.add_option("--plane-size", o.generate.stack.plane_size,
                 "Angstrom: the simulated plane's least width (sets the native pixel, lambda / L)");
  app.add_option("--aperture-mrad", o.generate.stack.multislice.aperture_mrad,
                 "probe convergence semi-angle");
  app.add_option("--log-decades", o.log_decades,
                 "the input scale's depth: log10 intensities down to 10^-d of each pattern's "
                 "brightest pixel")
      ->check(CLI::Range(1, 12));
  app.add_option("--laue-zones", o.generate.stack.laue_zones,
                 "kinematic stacks: the higher-order Laue zones drawn (0: the zero layer)")
      ->check(CLI::Range(0, 3));
  app.add_option("--imbalance", o.imbalance, "training set's largest:smallest class ratio");
  app.add_option("--test-fraction", o.test_fraction, "materials held out");
  app.add_option("--seed", o.generate.seed, "generation seed");
  app.add_option("--threads", o.threads, "generation threads (0: all cores)");
  app.add_option("--metrics-out", metrics_out, "metrics JSON (per-class figures, confusion PNG)");
  app.add_option("--export", export_path,
                 "write the generated set as an HDF5 file (train/x, train/y, test/x, test/y) and "
                 "stop");
  CLI11_PARSE(app, argc, argv);
  try {
    o.generate.groups = groups;
    o.generate.stack.kinematic = mode == "kinematic";
    o.generate.stack.multislice.grid.nx = o.generate.stack.multislice.grid.ny = size;
    o.task =
        task == "system" ? cbed::ClassifyTask::crystal_system : cbed::ClassifyTask::space_group;
    // The config and the metrics path first: a typo fails now, not after minutes of generation.
    std::optional<exadnn::train::TrainConfig> config;
    if (export_path.empty()) {
      config = exadnn::train::load_config(config_path, overrides);
      exadnn::train::TrainOptions outputs;
      outputs.metrics_out = metrics_out;
      exadnn::train::check_output_files(outputs);
    }
    const auto start = std::chrono::steady_clock::now();
    const cbed::ClassifyData d = cbed::make_classify_data(o);
    const double generation_s = seconds_since(start);
    std::ostringstream counts;
    for (size_t c = 0; c < d.train_counts.size(); ++c)
      counts << (c ? " " : "") << d.class_names[c] << ":" << d.train_counts[c];
    std::printf(
        "generated %lld training + %lld test materials (%s, %dx%d) in %.1f s; "
        "%ld structures drawn, %.1f %% rejected\ntraining materials per class: %s\n",
        static_cast<long long>(d.train->size()), static_cast<long long>(d.test->size()),
        mode.c_str(), size, size, generation_s, d.stats.attempts, 100 * d.stats.rejection_rate(),
        counts.str().c_str());
    if (!export_path.empty()) {
      exadnn::data::write_hdf5(export_path, {{"train/x", d.train->inputs()},
                                             {"train/y", d.train->targets()},
                                             {"test/x", d.test->inputs()},
                                             {"test/y", d.test->targets()}});
      std::printf("wrote %s (%lld classes)\n", export_path.c_str(),
                  static_cast<long long>(d.class_names.size()));
      return 0;
    }

    exadnn::train::TrainerParts parts;
    parts.data.train = d.train;
    parts.data.test = d.test;
    parts.class_names = d.class_names;  // the metrics' and the confusion matrix's labels
    exadnn::train::TrainOptions options;
    options.metrics_out = metrics_out;
    exadnn::train::Trainer trainer(*config, options, std::move(parts));
    // The Trainer checked that the model scores as many classes as the task has (the names).
    const int64_t classes = static_cast<int64_t>(d.class_names.size());
    trainer.on_epoch([](const exadnn::train::EpochRecord& e) {
      std::printf("epoch %lld  loss %.4f  test top-1 %.4f  %.0f samples/s  %.1f s\n",
                  static_cast<long long>(e.epoch), e.train_loss, e.test_accuracy,
                  e.samples_per_second, e.seconds);
      std::fflush(stdout);
    });
    trainer.fit();
    const exadnn::train::ClassMetrics m = exadnn::train::evaluate_classes(
        trainer.model(), trainer.data(), config->data.batch_size, classes);
    std::printf(
        "held-out %s (%lld materials, %lld classes): top-1 %.4f  top-%lld %.4f  "
        "macro-F1 %.4f\n",
        task.c_str(), static_cast<long long>(m.total()), static_cast<long long>(classes), m.top1(),
        static_cast<long long>(m.k()), m.topk(), m.macro_f1());
    for (int64_t c = 0; c < classes; ++c)
      std::printf("  %-12s support %4lld  precision %.3f  recall %.3f  F1 %.3f\n",
                  d.class_names[size_t(c)].c_str(), static_cast<long long>(m.support(c)),
                  m.precision(c), m.recall(c), m.f1(c));
  } catch (const std::exception& e) {
    std::fprintf(stderr, "%s\n", e.what());
    return 1;
  }
  return 0;
}
