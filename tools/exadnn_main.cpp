// The `exadnn` command line:
//   exadnn info                       build, BLAS/oneDNN configuration and chosen fast paths
//   exadnn train [--config FILE] ...  train a model (default: an MLP on Fashion-MNIST)
//   exadnn eval --checkpoint FILE     score a saved model on its test set
//   exadnn flow run|check|graph FILE  workflows (run under mpirun; see docs/workflows.md)
// Errors print one clear message and exit with a non-zero code.
#include <exadnn/exadnn.h>
#include <CLI/CLI.hpp>

#include <cstdio>
#include <string_view>

#include "exadnn/train/config.h"
#include "exadnn/train/strategies.h"
#include "train_command.h"
#ifdef EXADNN_WITH_FLOW
#include "flow_command.h"
#endif
#include <exadnn/core/plugin.h>

namespace {
// An error's message without the "exadnn: " that exadnn::Error puts first (the caller's own
// prefix says it already).
std::string_view message_of(const std::exception& e) {
  std::string_view text = e.what();
  if (text.starts_with("exadnn: ")) text.remove_prefix(8);
  return text;
}
}  // namespace

int main(int argc, char** argv) {
  // A training step's transient mallocs (oneDNN's GEMM workspaces) reuse the heap's pages instead
  // of faulting them in again every step (core/host_heap.h; EXADNN_KEEP_FREED_MEMORY=0: not).
  exadnn::keep_freed_host_memory();
  // The applications' modules and dataset kinds are plugins, loaded when a control file or a
  // config names one (core/plugin.h): a plain training run maps none of their libraries.
  exadnn::set_app_plugins_enabled(true);
  CLI::App app{"exadnn: deep learning for HPC machines"};
  app.require_subcommand(1);
  app.set_version_flag("--version", std::string("exadnn ") + exadnn::version());

  auto* info = app.add_subcommand("info", "print the build and the fast paths chosen at run time");
  int info_threads = 0;
  info->add_option("--threads", info_threads, "thread count to apply first")
      ->check(CLI::PositiveNumber);

  auto* train = app.add_subcommand("train", "train a model (default: the Fashion-MNIST MLP)");
  std::string config_path, metrics_out, checkpoint_dir, plot;
  std::vector<std::string> overrides;
  bool resume = false, overwrite = false, print_config = false, profile = false;
  train->add_option("--config", config_path, "YAML training config")->check(CLI::ExistingFile);
  train->add_option("--set", overrides,
                    "override a config key: --set optimizer.lr=0.1 (repeatable)");
  train->add_option("--metrics-out", metrics_out, "write metrics JSON here");
  train->add_option(
      "--checkpoint-dir", checkpoint_dir,
      "write DIR/last.ckpt after each epoch, DIR/best.ckpt at each new best test score");
  train->add_flag("--resume", resume, "continue from DIR/last.ckpt");
  train->add_flag("--overwrite", overwrite, "replace a DIR/last.ckpt left by an earlier run");
  train->add_option("--plot", plot, "write a PNG of loss and accuracy per epoch");
  train->add_flag("--profile", profile,
                  "print where each epoch's step time went: forward and backward per layer, "
                  "optimizer, data");
  train->add_flag("--print-default-config", print_config, "print the default config and exit");

  auto* eval = app.add_subcommand("eval", "score a checkpoint on its config's test set");
  std::string checkpoint;
  eval->add_option("--checkpoint", checkpoint, "checkpoint file")
      ->required()
      ->check(CLI::ExistingFile);
  std::string eval_metrics_out;
  eval->add_option("--metrics-out", eval_metrics_out,
                   "write per-class metrics JSON here, and the confusion matrix beside it");

#ifdef EXADNN_WITH_FLOW
  const auto flow = exadnn::cli::add_flow_command(app);
#endif

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e);
  }

  try {
    if (info->parsed()) {
      if (info_threads > 0) exadnn::set_num_threads(info_threads);
      exadnn::load_plugin("cuda");  // so the memory kinds below are the ones a GPU run has
      std::printf("%s", exadnn::runtime_info().c_str());
      // The CUDA backend is a plugin: loaded here to ask it, never by a CPU run.
      using Report = const char* (*)();
      if (const auto report =
              reinterpret_cast<Report>(exadnn::plugin_symbol("cuda", "exadnn_cuda_report_text")))
        std::printf("%s", report());
      else
        std::printf("CUDA: no backend plugin (build with nvcc available, -DEXADNN_CUDA=ON): %s\n",
                    exadnn::plugin_error("cuda").c_str());
      std::string apps;
      for (const std::string& app : exadnn::app_plugins()) apps += (apps.empty() ? "" : ", ") + app;
      std::printf("application plugins (loaded on first use): %s\n",
                  apps.empty() ? "none found" : apps.c_str());
      // HDF5 is a plugin too (src/data/hdf5/): loaded here only to say whether a run could read it.
      if (exadnn::load_plugin("hdf5"))
        std::printf("HDF5: plugin libexadnn_hdf5.so.0 (loaded by the first HDF5 file)\n");
      else
        std::printf("HDF5: no plugin, HDF5 files cannot be read: %s\n",
                    exadnn::plugin_error("hdf5").c_str());
    } else if (train->parsed()) {
      if (print_config) {
        std::printf("%s", exadnn::train::default_config_yaml().c_str());
        return 0;
      }
      const exadnn::train::TrainConfig config =
          config_path.empty() ? exadnn::train::parse_config(exadnn::train::default_config_yaml(),
                                                            "default config", overrides)
                              : exadnn::train::load_config(config_path, overrides);
      exadnn::cli::train(config, {metrics_out, checkpoint_dir, resume, overwrite, plot, profile});
    } else if (eval->parsed()) {
      exadnn::cli::evaluate_checkpoint(checkpoint, 1000, eval_metrics_out);
    }
#ifdef EXADNN_WITH_FLOW
    else if (flow->flow->parsed()) {
      return exadnn::cli::run_flow_command(*flow);
    }
#endif
  } catch (const std::exception& e) {
    // In an MPI job this ends every rank with the message (none is left waiting for this one).
    const std::string message(message_of(e));
    if (exadnn::train::abort_job(message, 1)) return 1;
    std::fprintf(stderr, "exadnn: error: %s\n", message.c_str());
    return 1;
  }
  return 0;
}
