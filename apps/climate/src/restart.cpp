#include "climate/restart.h"

#include <cstdio>
#include <cstdlib>
#include <vector>

#include "exadnn/core/error.h"
#include "exadnn/io/checkpoint.h"
#include "exadnn/ops/factories.h"

namespace climate {

std::string exact_text(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.17g", v);
  return buf;
}

namespace {

constexpr const char* kKind = "climate_run restart";

const std::string& field(const exadnn::io::Checkpoint& c, const std::string& key) {
  const auto it = c.metadata.find(key);
  EXADNN_CHECK(it != c.metadata.end(), "restart", c.path, ": no '", key,
               "' in its metadata (not a restart file of this version)");
  return it->second;
}

}  // namespace

void save_restart(const std::string& path, const SwState& state, double time, long steps,
                  const RestartSettings& settings) {
  std::map<std::string, std::string> metadata(settings.begin(), settings.end());
  metadata["kind"] = kKind;
  metadata["time"] = exact_text(time);
  metadata["steps"] = std::to_string(steps);
  exadnn::StateDict tensors;
  tensors.insert("state", exadnn::from_vector<double>(state));
  exadnn::io::save_checkpoint(path, tensors, metadata);
}

void save_restart(const std::string& path, const Simulation& sim, const RestartSettings& settings) {
  save_restart(path, sim.state(), sim.time(), sim.steps(), settings);
}

Restart load_restart(const std::string& path, const RestartSettings& settings,
                     std::size_t state_size) {
  const exadnn::io::Checkpoint c = exadnn::io::load_checkpoint(path);
  EXADNN_CHECK(field(c, "kind") == kKind, "restart", path, ": a checkpoint of kind '",
               field(c, "kind"), "', not a ", kKind);
  for (const auto& [key, value] : settings)
    EXADNN_CHECK(field(c, key) == value, "restart", path, ": it was written with ", key, " = ",
                 field(c, key), ", this run has ", key, " = ", value,
                 " (continue a run with the settings it started with)");
  EXADNN_CHECK(c.tensors.contains("state"), "restart", path, ": no 'state' tensor");
  Restart r;
  r.state = exadnn::to_vector<double>(c.tensors.at("state"));
  EXADNN_CHECK(r.state.size() == state_size, "restart", path, ": a state of ", r.state.size(),
               " values, this mesh has ", state_size);
  char* end = nullptr;
  r.time = std::strtod(field(c, "time").c_str(), &end);
  EXADNN_CHECK(end && *end == '\0', "restart", path, ": time '", field(c, "time"),
               "' is not a number");
  r.steps = std::strtol(field(c, "steps").c_str(), &end, 10);
  EXADNN_CHECK(end && *end == '\0' && r.steps >= 0, "restart", path, ": steps '", field(c, "steps"),
               "' is not a step count");
  return r;
}

}  // namespace climate
