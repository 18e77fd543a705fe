#include "config_distributed.h"

#include <yaml-cpp/yaml.h>

#include <set>

namespace exadnn::train::internal {

void parse_mpi(const YAML::Node& node, MpiSpec& spec, const ReportProblem& report) {
  spec.enabled = true;
  spec.mode = node["mode"].Scalar();
  const bool ps = spec.mode == "param_server";
  const std::set<std::string> allowed =
      ps ? std::set<std::string>{"mode",       "servers",    "asynchronous",
                                 "push_every", "pull_every", "timeout_s"}
      : spec.mode == "async_rma"
          ? std::set<std::string>{"mode", "staleness", "atomic_reads", "timeout_s"}
          : std::set<std::string>{"mode", "bucket_mb", "first_bucket_mb", "transport", "timeout_s"};
  std::string allowed_list;
  for (const auto& k : allowed) allowed_list += (allowed_list.empty() ? "" : ", ") + k;
  for (auto it = node.begin(); it != node.end(); ++it) {
    const std::string key = it->first.as<std::string>();
    if (!allowed.count(key))
      report(it->first, "unknown key '" + key + "' in distributed (mode " + spec.mode +
                            " allows: " + allowed_list + ")");
  }
  // Reads node[key] as T; `valid` says whether the value is acceptable, `expected` what is.
  auto read = [&](const char* key, auto& out, auto valid, const char* expected) {
    const YAML::Node v = node[key];
    if (!v) return;
    bool ok = true;
    try {
      out = v.as<std::remove_reference_t<decltype(out)>>();
      ok = valid(out);
    } catch (const YAML::Exception&) {
      ok = false;
    }
    if (!ok)
      report(v, std::string("'distributed.") + key + "' must be " + expected + ", got '" +
                    (v.IsScalar() ? v.Scalar() : std::string("a collection")) + "'");
  };
  auto positive = [](auto x) { return x > 0; };
  auto non_negative = [](auto x) { return x >= 0; };
  read("bucket_mb", spec.bucket_mb, non_negative, "a size in MiB >= 0");
  read("first_bucket_mb", spec.first_bucket_mb, non_negative, "a size in MiB >= 0");
  read(
      "transport", spec.transport,
      [](const std::string& t) { return t == "auto" || t == "mpi" || t == "shared_memory"; },
      "auto, mpi or shared_memory");
  read("servers", spec.servers, positive, "a positive integer");
  read(
      "asynchronous", spec.asynchronous, [](bool) { return true; }, "true or false");
  read("push_every", spec.push_every, positive, "a positive integer");
  read("pull_every", spec.pull_every, positive, "a positive integer");
  read("timeout_s", spec.timeout_s, positive, "a positive number of seconds");
  read(
      "staleness", spec.staleness, [](int64_t s) { return s >= -1; },
      "-1 (no bound) or an integer >= 0");
  read(
      "atomic_reads", spec.atomic_reads, [](bool) { return true; }, "true or false");
  if (ps && !spec.asynchronous && (node["push_every"] || node["pull_every"]))
    report(node["push_every"] ? node["push_every"] : node["pull_every"],
           "'distributed.push_every' and 'pull_every' need 'asynchronous: true' (the synchronous "
           "parameter server pushes and pulls every step)");
}

}  // namespace exadnn::train::internal
