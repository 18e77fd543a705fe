#include "exadnn/train/config.h"

#include <yaml-cpp/depthguard.h>
#include <yaml-cpp/yaml.h>

#include <cmath>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include "config_class_balance.h"
#include "config_distributed.h"
#include "config_values.h"
#include "exadnn/core/device.h"
#include "exadnn/core/error.h"
#include "exadnn/train/datasets.h"
#include "exadnn/train/losses.h"
#include "exadnn/train/optimizers.h"
#include "exadnn/train/schedulers.h"

namespace exadnn::train {

using internal::describe_value;
using internal::read_count;
using internal::read_real;
using internal::report_duplicate_keys;
using internal::ReportProblem;

std::string default_config_yaml() {
  return R"(# The default: a 784-512-256-10 MLP on Fashion-MNIST.
data: {dataset: fashion-mnist, path: /usr/share/datasets/fashion-mnist, batch_size: 128, shuffle: true}
model:
  - flatten
  - linear: {out: 512}
  - relu
  - linear: {out: 256}
  - relu
  - linear: {out: 10}
loss: cross_entropy
optimizer: {name: sgd, lr: 0.05, momentum: 0.9}
epochs: 3
threads: 2
seed: 0
)";
}

namespace {

// Upper bounds of the config's counts: far above any real run, low enough that a typo is caught
// before it allocates or starts threads (layer settings: their kinds in train/layers.cpp).
constexpr int64_t kMaxThreads = 1024;
constexpr int64_t kMaxEpochs = 1'000'000;
constexpr int64_t kMaxBatch = int64_t{1} << 24;

// Collects every problem with its line, so one run reports them all.
class Problems {
 public:
  explicit Problems(std::string origin) : origin_(std::move(origin)) {}
  void add(const YAML::Node& at, const std::string& message) {
    const int line = at.IsDefined() && at.Mark().line >= 0 ? at.Mark().line + 1 : 0;
    items_.push_back(line > 0 ? detail::cat(origin_, ":", line, ": ", message)
                              : detail::cat(origin_, ": ", message));
  }
  void add_plain(const std::string& message) { items_.push_back(origin_ + ": " + message); }
  /// This collector as the config_values.h callback.
  ReportProblem reporter() {
    return [this](const YAML::Node& at, const std::string& m) { add(at, m); };
  }
  void throw_if_any() const {
    if (items_.empty()) return;
    std::ostringstream os;
    os << items_.size() << (items_.size() == 1 ? " problem" : " problems") << " in the config:";
    for (const auto& p : items_) os << "\n  " << p;
    throw Error("config", os.str());
  }

 private:
  std::string origin_;
  std::vector<std::string> items_;
};

std::string join(const std::set<std::string>& words) {
  std::string out;
  for (const auto& w : words) out += (out.empty() ? "" : ", ") + w;
  return out;
}

// Reports keys of `map` that are not in `allowed`; returns false if `map` is not a map.
bool check_keys(const YAML::Node& map, const std::set<std::string>& allowed,
                const std::string& where, Problems& problems) {
  if (!map.IsMap()) {
    problems.add(map, where + " must be a mapping of keys to values");
    return false;
  }
  for (auto it = map.begin(); it != map.end(); ++it) {
    const std::string key = it->first.as<std::string>();
    if (!allowed.count(key))
      problems.add(it->first, detail::cat("unknown key '", key, "' in ", where,
                                          " (allowed: ", join(allowed), ")"));
  }
  return true;
}

// Reads map[key] into `out` if present; a wrong type is a problem naming the key.
template <class T>
void read(const YAML::Node& map, const std::string& key, T& out, const std::string& where,
          Problems& problems, const char* type_name) {
  const YAML::Node v = map[key];
  if (!v) return;
  try {
    if (!v.IsScalar()) throw YAML::BadConversion(v.Mark());
    out = v.as<T>();
  } catch (const YAML::Exception&) {
    problems.add(
        v, detail::cat("'", where, ".", key, "' must be ", type_name, ", got ", describe_value(v)));
  }
}

void read_choice(const YAML::Node& map, const std::string& key, std::string& out,
                 const std::set<std::string>& allowed, const std::string& where,
                 Problems& problems) {
  std::string value = out;
  read(map, key, value, where, problems, "a string");
  if (!allowed.count(value)) {
    problems.add(map[key], detail::cat("'", where, ".", key, "' is '", value,
                                       "' (allowed: ", join(allowed), ")"));
    return;
  }
  out = value;
}

// data.stream: {buffer_mb: N}: the training set streamed through N MiB (1 MiB .. 1 TiB).
void parse_data_stream(const YAML::Node& node, DataSpec& d, Problems& problems) {
  if (!node) return;
  if (!check_keys(node, {"buffer_mb"}, "data.stream", problems)) return;
  if (!node["buffer_mb"]) {
    problems.add(node, "'data.stream' needs 'buffer_mb' (the loader's memory in MiB)");
    return;
  }
  read_count(node["buffer_mb"], "data.stream.buffer_mb", 1, int64_t(1) << 20, d.stream_buffer_mb,
             problems.reporter());
}

// data.layout: {key: name, ...}, the keys the dataset kind declares (DatasetKind::layout_keys).
void parse_data_layout(const YAML::Node& node, DataSpec& d, Problems& problems) {
  if (!node || !train::datasets().contains(d.dataset)) return;
  const auto& keys = train::datasets().at(d.dataset).layout_keys;
  if (keys.empty()) {
    problems.add(node, detail::cat("dataset '", d.dataset, "' takes no 'data.layout'"));
    return;
  }
  std::set<std::string> allowed;
  for (const auto& [key, meaning] : keys) allowed.insert(key);
  if (!check_keys(node, allowed, "data.layout", problems)) return;
  for (auto it = node.begin(); it != node.end(); ++it) {
    const std::string key = it->first.as<std::string>();
    if (!allowed.count(key)) continue;
    std::string value;
    read(node, key, value, "data.layout", problems, "a name");
    if (value.empty())
      problems.add(it->second, detail::cat("'data.layout.", key, "' is empty"));
    else
      d.layout[key] = value;
  }
}

// data.class_names: a list of distinct, non-empty names, one per class in label order.
void parse_class_names(const YAML::Node& node, DataSpec& d, Problems& problems) {
  if (!node) return;
  if (!node.IsSequence() || node.size() == 0) {
    problems.add(node, "'data.class_names' must be a non-empty list of names, one per class");
    return;
  }
  std::set<std::string> seen;
  for (const YAML::Node& item : node) {
    if (!item.IsScalar() || item.Scalar().empty()) {
      problems.add(item, detail::cat("'data.class_names' entry ", d.class_names.size(),
                                     " must be a non-empty name, got ", describe_value(item)));
      return;
    }
    if (!seen.insert(item.Scalar()).second) {
      problems.add(item, detail::cat("'data.class_names' names '", item.Scalar(), "' twice"));
      return;
    }
    d.class_names.push_back(item.Scalar());
  }
}

void parse_data(const YAML::Node& node, DataSpec& d, Problems& problems) {
  if (!check_keys(node, {"dataset",      "path",         "batch_size",  "shuffle",     "drop_last",
                         "train_images", "train_labels", "test_images", "test_labels", "train",
                         "test",         "label_column", "header",      "file",        "train_x",
                         "train_y",      "test_x",       "test_y",      "in_memory",   "stream",
                         "layout",       "class_names"},
                  "data", problems))
    return;
  // An application plugin's dataset kind (cbed-space-group) is loaded by asking for it first.
  if (node["dataset"] && node["dataset"].IsScalar())
    train::datasets().contains(node["dataset"].as<std::string>());
  const std::vector<std::string> names = train::datasets().names();
  read_choice(node, "dataset", d.dataset, {names.begin(), names.end()}, "data", problems);
  read(node, "path", d.path, "data", problems, "a path");
  read_count(node["batch_size"], "data.batch_size", 1, kMaxBatch, d.batch_size,
             problems.reporter());
  read(node, "shuffle", d.shuffle, "data", problems, "true or false");
  read(node, "drop_last", d.drop_last, "data", problems, "true or false");
  read(node, "train_images", d.train_images, "data", problems, "a path");
  read(node, "train_labels", d.train_labels, "data", problems, "a path");
  read(node, "test_images", d.test_images, "data", problems, "a path");
  read(node, "test_labels", d.test_labels, "data", problems, "a path");
  read(node, "train", d.train_file, "data", problems, "a path");
  read(node, "test", d.test_file, "data", problems, "a path");
  read(node, "label_column", d.label_column, "data", problems, "an integer");
  read(node, "header", d.header, "data", problems, "true or false");
  read(node, "file", d.file, "data", problems, "a path");
  read(node, "train_x", d.train_x, "data", problems, "a dataset name");
  read(node, "train_y", d.train_y, "data", problems, "a dataset name");
  read(node, "test_x", d.test_x, "data", problems, "a dataset name");
  read(node, "test_y", d.test_y, "data", problems, "a dataset name");
  read(node, "in_memory", d.in_memory, "data", problems, "true or false");
  parse_data_stream(node["stream"], d, problems);
  parse_data_layout(node["layout"], d, problems);
  parse_class_names(node["class_names"], d, problems);
  if (d.drop_last && d.stream_buffer_mb > 0)
    problems.add(node["drop_last"],
                 "'data.drop_last' cannot apply to a streamed training set (data.stream): the "
                 "stream's epochs end where its own batches do");
  const std::string lacks =
      train::datasets().contains(d.dataset) ? train::datasets().at(d.dataset).missing(d) : "";
  if (!lacks.empty()) problems.add(node, detail::cat("dataset '", d.dataset, "' ", lacks));
}

// The model list: each layer a name from train::layers() ('relu') or one name with settings
// ('linear: {out: 10}'), every setting checked against the kind's declaration.
void parse_model(const YAML::Node& node, std::vector<LayerSpec>& layers, Problems& problems) {
  if (!node.IsSequence() || node.size() == 0) {
    problems.add(node, "'model' must be a non-empty list of layers");
    return;
  }
  const train::Registry<train::LayerKind>& kinds = train::layers();
  for (const YAML::Node& item : node) {
    LayerSpec spec;
    spec.line = item.Mark().line + 1;
    YAML::Node settings;
    if (item.IsScalar()) {
      spec.kind = item.Scalar();
    } else if (item.IsMap() && item.size() == 1) {
      spec.kind = item.begin()->first.as<std::string>();
      settings = item.begin()->second;
    } else {
      problems.add(item,
                   "a layer is a name ('relu') or one name with settings ('linear: {out: 10}')");
      continue;
    }
    if (!kinds.contains(spec.kind)) {
      problems.add(item,
                   detail::cat("unknown layer '", spec.kind, "' (allowed: ", kinds.known(), ")"));
      continue;
    }
    const train::LayerKind& kind = kinds.at(spec.kind);
    const std::string where = "layer " + spec.kind;
    std::set<std::string> allowed;
    for (const auto& [name, _] : kind.settings) allowed.insert(name);
    if (settings && !settings.IsNull()) {
      if (!check_keys(settings, allowed, where, problems)) continue;
      const ReportProblem report = problems.reporter();
      for (const auto& [name, setting] : kind.settings) {
        const YAML::Node v = settings[name];
        if (setting.type == train::LayerSetting::Type::count) {
          int64_t value = 0;
          if (read_count(v, where + "." + name, static_cast<int64_t>(setting.lo),
                         static_cast<int64_t>(setting.hi), value, report))
            spec.settings.set(name, static_cast<double>(value));
        } else {
          double value = 0;
          if (read_real(v, where + "." + name, setting.lo, setting.hi, value, report))
            spec.settings.set(name, value);
        }
      }
    }
    for (const auto& key : kind.required)
      if (!settings || !settings[key]) problems.add(item, detail::cat(where, " needs '", key, "'"));
    layers.push_back(spec);
  }
}

void parse_optimizer(const YAML::Node& node, OptimizerSpec& o, Problems& problems) {
  if (!check_keys(node,
                  {"name", "lr", "momentum", "nesterov", "weight_decay", "beta1", "beta2", "eps"},
                  "optimizer", problems))
    return;
  const std::vector<std::string> names = train::optimizers().names();
  read_choice(node, "name", o.name, {names.begin(), names.end()}, "optimizer", problems);
  if (train::optimizers().contains(o.name)) train::optimizers().at(o.name).defaults(o);
  // Momentum and the betas are decay factors: 1 or more never forgets and diverges.
  const ReportProblem report = problems.reporter();
  const double below_one = std::nextafter(1.0, 0.0);
  read_real(node["lr"], "optimizer.lr", 0, HUGE_VAL, o.lr, report, /*lo_open=*/true);
  read_real(node["momentum"], "optimizer.momentum", 0, below_one, o.momentum, report);
  read(node, "nesterov", o.nesterov, "optimizer", problems, "true or false");
  read_real(node["weight_decay"], "optimizer.weight_decay", 0, HUGE_VAL, o.weight_decay, report);
  read_real(node["beta1"], "optimizer.beta1", 0, below_one, o.beta1, report);
  read_real(node["beta2"], "optimizer.beta2", 0, below_one, o.beta2, report);
  read_real(node["eps"], "optimizer.eps", 0, 1, o.eps, report, /*lo_open=*/true);
}

void parse_scheduler(const YAML::Node& node, SchedulerSpec& s, Problems& problems) {
  std::set<std::string> names = {"none"};  // no schedule, and the train::schedulers() table
  for (const std::string& n : train::schedulers().names()) names.insert(n);
  if (node.IsScalar()) {  // 'scheduler: cosine', the defaults of that schedule
    if (names.count(node.Scalar()))
      s.name = node.Scalar();
    else
      problems.add(node, detail::cat("'scheduler' is '", node.Scalar(), "' (allowed: ", join(names),
                                     ", or a mapping with 'name')"));
    return;
  }
  if (!check_keys(node, {"name", "t_max", "eta_min", "step_size", "gamma"}, "scheduler", problems))
    return;
  read_choice(node, "name", s.name, names, "scheduler", problems);
  if (!node["name"]) problems.add(node, "'scheduler' needs 'name' (" + join(names) + ")");
  const ReportProblem report = problems.reporter();
  read_count(node["t_max"], "scheduler.t_max", 0, kMaxEpochs, s.t_max, report);
  read_real(node["eta_min"], "scheduler.eta_min", 0, HUGE_VAL, s.eta_min, report);
  read_count(node["step_size"], "scheduler.step_size", 1, kMaxEpochs, s.step_size, report);
  read_real(node["gamma"], "scheduler.gamma", 0, 1e6, s.gamma, report, /*lo_open=*/true);
  const std::set<std::string> own = train::schedulers().contains(s.name)
                                        ? train::schedulers().at(s.name).settings
                                        : std::set<std::string>{};
  for (const char* key : {"t_max", "eta_min", "step_size", "gamma"})
    if (node[key] && !own.count(key))
      problems.add(node[key], detail::cat("'scheduler.", key, "' is not a setting of the '", s.name,
                                          "' schedule"));
}

// Applies "a.b=value" to the YAML tree (creating maps on the way).
void apply_override(YAML::Node& root, const std::string& text, Problems& problems) {
  const size_t eq = text.find('=');
  if (eq == std::string::npos || eq == 0) {
    problems.add_plain(
        detail::cat("--set '", text, "': expected key=value (e.g. optimizer.lr=0.1)"));
    return;
  }
  std::vector<std::string> path;
  std::stringstream keys(text.substr(0, eq));
  for (std::string part; std::getline(keys, part, '.');) path.push_back(part);
  YAML::Node value;
  try {
    value = YAML::Load(text.substr(eq + 1));
    // A scalar from --set has no line in the config: a node without a mark is reported so.
    if (value.IsScalar()) value = YAML::Node(value.Scalar());
  } catch (const YAML::Exception& e) {
    problems.add_plain(detail::cat("--set '", text, "': bad value: ", e.msg));
    return;
  }
  YAML::Node cur = root;
  for (size_t i = 0; i + 1 < path.size(); ++i) {
    if (!cur[path[i]] || !cur[path[i]].IsMap()) cur[path[i]] = YAML::Node(YAML::NodeType::Map);
    YAML::Node child = cur[path[i]];
    cur.reset(child);
  }
  cur[path.back()] = value;
}

}  // namespace

TrainConfig parse_config(const std::string& yaml_text, const std::string& origin,
                         const std::vector<std::string>& overrides) {
  YAML::Node root;
  try {
    root = YAML::Load(yaml_text);
  } catch (const YAML::DeepRecursion& e) {
    throw Error("config", detail::cat(origin, ":", e.mark.line + 1,
                                      ": invalid YAML: lists or mappings nested too deeply"));
  } catch (const YAML::ParserException& e) {
    throw Error("config", detail::cat(origin, ":", e.mark.line + 1, ": invalid YAML: ", e.msg));
  }
  if (root.IsNull()) root = YAML::Node(YAML::NodeType::Map);
  Problems problems(origin);
  if (!report_duplicate_keys(root, problems.reporter())) problems.throw_if_any();
  for (const auto& o : overrides) apply_override(root, o, problems);

  TrainConfig c;
  if (!check_keys(
          root,
          {"data", "model", "loss", "optimizer", "scheduler", "epochs", "threads", "seed",
           "distributed", "parallel", "precision", "device", "class_balance", "flush_denormals"},
          "the top level", problems)) {
    problems.throw_if_any();
  }
  if (root["data"]) parse_data(root["data"], c.data, problems);
  if (root["model"]) {
    parse_model(root["model"], c.model, problems);
  } else {
    problems.add_plain("'model' is missing (a list of layers, e.g. '- linear: {out: 10}')");
  }
  const std::vector<std::string> losses = train::losses().names();
  read_choice(root, "loss", c.loss, {losses.begin(), losses.end()}, "config", problems);
  if (root["class_balance"])
    internal::parse_class_balance(root["class_balance"], c.loss, c.class_balance,
                                  problems.reporter());
  if (root["optimizer"]) parse_optimizer(root["optimizer"], c.optimizer, problems);
  if (root["scheduler"]) parse_scheduler(root["scheduler"], c.scheduler, problems);
  read_count(root["epochs"], "epochs", 1, kMaxEpochs, c.epochs, problems.reporter());
  // 0: OMP_NUM_THREADS or every core; beyond the bound libgomp fails or crashes creating them.
  read_count(root["threads"], "threads", 0, kMaxThreads, c.threads, problems.reporter());
  read(root, "seed", c.seed, "config", problems, "a non-negative integer");
  read(root, "flush_denormals", c.flush_denormals, "config", problems, "true or false");
  read_choice(root, "precision", c.precision, {"fp32", "bf16", "fp16"}, "config", problems);
  if (const YAML::Node d = root["distributed"]) {  // hogwild_config.cpp and mpi_config.cpp
    const auto report = [&problems](const YAML::Node& at, const std::string& m) {
      problems.add(at, m);
    };
    const YAML::Node mode = d.IsMap() ? d["mode"] : YAML::Node();
    if (!mode || !mode.IsScalar() || !strategies().contains(mode.Scalar()))
      problems.add(
          mode ? mode : d,
          detail::cat("'distributed.mode' is ", mode ? describe_value(mode) : "missing",
                      " (known: ", strategies().known(), "; the MPI ones run under mpirun)"));
    else if (strategies().at(mode.Scalar()).family == StrategyKind::Family::mpi)
      internal::parse_mpi(d, c.mpi, report);
    else
      internal::parse_threads(d, c.hogwild, report);
  }
  // parallel: {shard, tensor, pipeline, ...}: checked against the model, batch and mode above.
  if (const YAML::Node p = root["parallel"]) internal::parse_parallel(p, c, problems.reporter());
  read(root, "device", c.device, "config", problems, "a device name");
  if (root["device"]) {
    try {
      const Device device = Device::parse(c.device);
      if (!device.is_cpu() && (c.hogwild.enabled || c.mpi.enabled))
        problems.add(root["device"], "'device: " + c.device +
                                         "' trains in one process; 'distributed' runs on the CPU");
    } catch (const Error&) {
      problems.add(root["device"], "'device' is '" + c.device + "' (allowed: cpu, cuda, cuda:N)");
    }
  }
  if (c.scheduler.name != "none" && (c.hogwild.enabled || c.mpi.mode == "param_server"))
    problems.add(root["scheduler"],
                 detail::cat("'scheduler' sets the rate of this process's optimizer; with "
                             "'distributed.mode: ",
                             c.hogwild.enabled ? c.hogwild.mode : c.mpi.mode,
                             "' the updates are applied by ",
                             c.hogwild.enabled ? "the worker threads'" : "the servers'",
                             " own optimizers, which it cannot reach"));
  if (c.precision == "fp16" && (c.hogwild.enabled || (c.mpi.enabled && c.mpi.mode != "allreduce")))
    problems.add(root["precision"],
                 "'precision: fp16' (loss scaling) runs in one process or with 'distributed.mode: "
                 "allreduce' (one overflow verdict for every rank); use bf16 with the other modes");
  problems.throw_if_any();
  std::ostringstream emitted;
  emitted << root;
  c.source = emitted.str();
  return c;
}

TrainConfig load_config(const std::string& path, const std::vector<std::string>& overrides) {
  std::ifstream in(path);
  EXADNN_CHECK(in.good(), "config", "cannot open config file ", path);
  std::stringstream text;
  text << in.rdbuf();
  return parse_config(text.str(), path, overrides);
}

}  // namespace exadnn::train
