#include "hogwild_config.h"

#include <yaml-cpp/yaml.h>

#include <map>

#include "config_values.h"

namespace exadnn::cli {

namespace {
const std::map<std::string, async::AsyncMode>& modes() {
  static const std::map<std::string, async::AsyncMode> m = {
      {"hogwild", async::AsyncMode::hogwild},
      {"threads_locked", async::AsyncMode::locked},
      {"threads_sync", async::AsyncMode::synchronous}};
  return m;
}
}  // namespace

bool is_hogwild_mode(const std::string& mode) {
  return modes().count(mode) > 0;
}

bool parse_hogwild(const YAML::Node& node, HogwildSpec& spec,
                   const std::function<void(const YAML::Node&, const std::string&)>& report) {
  if (!node.IsMap() || !node["mode"] || !node["mode"].IsScalar() ||
      !is_hogwild_mode(node["mode"].Scalar()))
    return false;
  spec.enabled = true;
  spec.mode = node["mode"].Scalar();
  for (auto it = node.begin(); it != node.end(); ++it) {
    const std::string key = it->first.as<std::string>();
    if (key != "mode" && key != "threads" && key != "accumulate")
      report(it->first, "unknown key '" + key + "' in distributed (mode " + spec.mode +
                            " allows: mode, threads, accumulate)");
  }
  // Worker threads and accumulated batches: a bound that catches typos before threads start.
  auto read_positive = [&](const char* key, int& out) {
    read_count(node[key], std::string("distributed.") + key, 1, 1024, out, report);
  };
  read_positive("threads", spec.threads);
  read_positive("accumulate", spec.accumulate);
  if (spec.accumulate > 1 && spec.mode == "threads_sync")
    report(node["accumulate"],
           "'distributed.accumulate' applies to hogwild and threads_locked, "
           "not threads_sync");
  return true;
}

std::unique_ptr<async::AsyncTrainer> make_hogwild_trainer(const HogwildSpec& spec,
                                                          std::shared_ptr<nn::Module> model,
                                                          async::ModelFactory make_replica,
                                                          async::OptimizerFactory make_optimizer,
                                                          async::LossFunction loss) {
  return std::make_unique<async::AsyncTrainer>(std::move(model), std::move(make_replica),
                                               std::move(make_optimizer), std::move(loss),
                                               async::AsyncOptions()
                                                   .mode(modes().at(spec.mode))
                                                   .threads(spec.threads)
                                                   .accumulate(spec.accumulate));
}

}  // namespace exadnn::cli
