#include <yaml-cpp/yaml.h>

#include "config_distributed.h"

namespace exadnn::train::internal {

void parse_threads(const YAML::Node& node, HogwildSpec& spec, const ReportProblem& report) {
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
           "'distributed.accumulate' applies to hogwild and threads_locked, not threads_sync");
}

}  // namespace exadnn::train::internal
