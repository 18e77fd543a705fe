// Built-in modules of the hyperparameter sweep (workflows/hyperparameter_sweep.yaml):
//   train_mlp    one training run (train::Trainer) of a config with this instance's settings;
//                its figures go to the tuple space as JSON under "<key>/<instance>"
//   select_best  takes `results` such tuples, prints them, and writes the best one as JSON (an
//                error saying how many came when the trainings that are left cannot give them all)
#include <algorithm>
#include <cstdio>
#include <fstream>
#include <nlohmann/json.hpp>

#include "exadnn/flow/module.h"
#include "exadnn/flow/tuple_space.h"
#include "exadnn/train/config.h"
#include "exadnn/train/trainer.h"

namespace exadnn::cli {

using train::default_config_yaml;
using train::load_config;
using train::parse_config;
using train::TrainConfig;

namespace {

// args: config (training YAML; default: the built-in Fashion-MNIST MLP), lr, batch, epochs
// (default 1), threads (default 1), optimizer, hidden (width of both hidden layers), key.
void train_mlp(flow::ModuleContext& ctx) {
  EXADNN_CHECK(ctx.comm().size() == 1, "train_mlp", ctx.describe(),
               ": runs on one rank per instance (ranks: 1)");
  std::vector<std::string> overrides{"epochs=" + std::to_string(ctx.arg<int>("epochs", 1)),
                                     "threads=" + std::to_string(ctx.arg<int>("threads", 1))};
  if (ctx.has_arg("lr"))
    overrides.push_back("optimizer.lr=" + std::to_string(ctx.arg<double>("lr")));
  if (ctx.has_arg("batch"))
    overrides.push_back("data.batch_size=" + std::to_string(ctx.arg<int>("batch")));
  if (ctx.has_arg("optimizer"))
    overrides.push_back("optimizer.name=" + ctx.arg<std::string>("optimizer"));
  const std::string path = ctx.arg<std::string>("config", "");
  TrainConfig config = path.empty()
                           ? parse_config(default_config_yaml(), "default config", overrides)
                           : load_config(path, overrides);
  if (ctx.has_arg("hidden")) {
    const int64_t hidden = ctx.arg<int64_t>("hidden");
    for (size_t i = 0; i + 1 < config.model.size(); ++i)  // every linear layer but the output
      if (config.model[i].kind == "linear")
        config.model[i].settings.set("out", static_cast<double>(hidden));
  }
  const auto began = std::chrono::steady_clock::now();
  train::Trainer trainer(config);
  trainer.on_epoch([&ctx](const train::EpochRecord& e) {  // one line per epoch in the job's log
    std::printf("%s: epoch %lld: train loss %.4f, test accuracy %.2f%%\n", ctx.describe().c_str(),
                static_cast<long long>(e.epoch), e.train_loss, 100.0 * e.test_accuracy);
  });
  const double accuracy = trainer.fit();
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - began).count();
  const nlohmann::json result{{"instance", ctx.instance()},
                              {"lr", config.optimizer.lr},
                              {"batch", config.data.batch_size},
                              {"optimizer", config.optimizer.name},
                              {"epochs", config.epochs},
                              {"test_accuracy", accuracy},
                              {"seconds", seconds}};
  ctx.tuple_space().put(
      ctx.arg<std::string>("key", "sweep/result") + "/" + std::to_string(ctx.instance()),
      std::string_view(result.dump()));
}

// args: results (how many to collect), key (default sweep/result), out (JSON file, default
// sweep_best.json).
void select_best(flow::ModuleContext& ctx) {
  if (ctx.comm().rank() != 0) return;
  const int count = ctx.arg<int>("results");
  const std::string pattern = ctx.arg<std::string>("key", "sweep/result") + "/*";
  std::vector<nlohmann::json> results;
  for (int i = 0; i < count; ++i) {
    try {
      results.push_back(nlohmann::json::parse(ctx.tuple_space().get(pattern).text()));
    } catch (const flow::NoProducerError& e) {
      // A training failed (on_error: continue): say how many results came, not only the wait.
      throw flow::NoProducerError("select_best",
                                  exadnn::detail::cat(ctx.describe(), ": got ", i, " of ", count,
                                                      " results '", pattern, "': ", e.what()));
    }
  }
  std::sort(results.begin(), results.end(), [](const auto& a, const auto& b) {
    return a["instance"].template get<int>() < b["instance"].template get<int>();
  });
  std::printf(
      "sweep: %d trainings\n  instance  optimizer  lr        batch  test accuracy  seconds\n",
      count);
  const nlohmann::json* best = nullptr;
  for (const auto& r : results) {
    std::printf("  %8d  %-9s  %-8g  %5d  %12.2f%%  %7.1f\n", r["instance"].get<int>(),
                r["optimizer"].get<std::string>().c_str(), r["lr"].get<double>(),
                r["batch"].get<int>(), 100 * r["test_accuracy"].get<double>(),
                r["seconds"].get<double>());
    if (!best || r["test_accuracy"].get<double>() > (*best)["test_accuracy"].get<double>())
      best = &r;
  }
  EXADNN_CHECK(best, "select_best", ctx.describe(), ": no results");
  std::printf("best: instance %d, lr %g, batch %d: test accuracy %.2f%%\n",
              (*best)["instance"].get<int>(), (*best)["lr"].get<double>(),
              (*best)["batch"].get<int>(), 100 * (*best)["test_accuracy"].get<double>());
  const std::string out = ctx.arg<std::string>("out", "sweep_best.json");
  std::ofstream file(out);
  EXADNN_CHECK(file.good(), "select_best", "cannot write '", out, "'");
  file << nlohmann::json{{"best", *best}, {"all", results}}.dump(2) << "\n";
  std::fflush(stdout);
}

}  // namespace

EXADNN_FLOW_MODULE(train_mlp, train_mlp);
EXADNN_FLOW_MODULE(select_best, select_best);

}  // namespace exadnn::cli
