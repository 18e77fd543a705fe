// The config's `parallel:` section (config_distributed.h): its keys and values, and whether the
// layout fits the model and the batch, every problem reported with its line.
#include <yaml-cpp/yaml.h>

#include <set>
#include <utility>

#include "config_distributed.h"
#include "exadnn/core/error.h"

namespace exadnn::train::internal {
namespace {

// Far above any real job, low enough to catch a typo.
constexpr int64_t kMaxWays = 4096;

const std::set<std::string> kActivations = {"relu", "leaky_relu", "gelu", "sigmoid", "tanh"};

// Reads node[key] as a bool or a string; a wrong type is reported naming the key.
template <class T>
void read_scalar(const YAML::Node& node, const char* key, T& out, const char* expected,
                 const ReportProblem& report) {
  const YAML::Node v = node[key];
  if (!v) return;
  try {
    if (!v.IsScalar()) throw YAML::BadConversion(v.Mark());
    out = v.as<T>();
  } catch (const YAML::Exception&) {
    report(v, detail::cat("'parallel.", key, "' must be ", expected, ", got ", describe_value(v)));
  }
}

// boundaries: the first layer (0-based, in the model list) of stages 1..P-1, increasing.
void read_boundaries(const YAML::Node& v, ParallelSpec& p, int64_t layers,
                     const ReportProblem& report) {
  if (!v.IsSequence()) {
    report(v, "'parallel.boundaries' must be a list of layer indices, got " + describe_value(v));
    return;
  }
  for (size_t i = 0; i < v.size(); ++i) {
    int64_t b = 0;
    if (!read_count(v[i], detail::cat("parallel.boundaries[", i, "]"), 1, layers - 1, b, report))
      return;
    if (!p.boundaries.empty() && b <= p.boundaries.back()) {
      report(v[i], detail::cat("'parallel.boundaries' must increase (a stage of no layers): ",
                               p.boundaries.back(), " then ", b));
      return;
    }
    p.boundaries.push_back(b);
  }
  if (static_cast<int64_t>(p.boundaries.size()) != p.pipeline - 1)
    report(v, detail::cat("'parallel.boundaries' has ", p.boundaries.size(),
                          " entries; 'parallel.pipeline: ", p.pipeline, "' needs ", p.pipeline - 1,
                          " (the first layer of each stage after the first)"));
}

// Tensor parallel splits each linear → activation → linear run: the first linear's output
// features (column-parallel), which are the second's input features (row-parallel).
void check_tensor_split(const YAML::Node& at, const TrainConfig& c, const ReportProblem& report) {
  const std::vector<LayerSpec>& m = c.model;
  const int t = c.parallel.tensor;
  int pairs = 0;
  for (size_t i = 0; i + 2 < m.size(); ++i) {
    if (m[i].kind != "linear" || !kActivations.count(m[i + 1].kind) || m[i + 2].kind != "linear")
      continue;
    ++pairs;
    const int64_t out = m[i].settings.count("out");
    if (out % t != 0)
      report(at, detail::cat("'parallel.tensor' is ", t, ", which does not divide the ", out,
                             " output features of the linear layer at line ", m[i].line,
                             " (split column-wise over the tensor ranks)"));
  }
  if (pairs == 0)
    report(at, detail::cat("'parallel.tensor' is ", t,
                           " but the model has no linear → activation → linear run to split "
                           "(activations: relu, leaky_relu, gelu, sigmoid, tanh)"));
}

// Spatial parallel splits images along their height up to the model's flatten or global_avgpool
// (the layers of spatial_strategy.cpp): each conv/pool there must keep the height at height /
// stride (so the bands' outputs are the whole image's), and every layer must be one the split
// reproduces.
void check_spatial_split(const YAML::Node& at, const TrainConfig& c, const ReportProblem& report) {
  const int s = c.parallel.spatial;
  bool banded = true;  // before the flatten or global_avgpool
  int windows = 0;     // conv2d and pooling layers before it
  for (const LayerSpec& l : c.model) {
    const std::string layer = detail::cat("the ", l.kind, " layer at line ", l.line);
    const bool windowed = l.kind == "conv2d" || l.kind == "maxpool2d" || l.kind == "avgpool2d";
    const bool head = l.kind == "flatten" || l.kind == "global_avgpool";  // ends the bands
    const bool splits = kActivations.count(l.kind) || l.kind == "batchnorm" ||
                        (banded ? windowed || head : l.kind == "linear" || l.kind == "flatten");
    if (head) banded = false;
    if (!splits) {
      report(at, detail::cat("'parallel.spatial: ", s, "' cannot split ", layer,
                             " (it splits conv2d, maxpool2d, avgpool2d, batchnorm and activations "
                             "before a flatten or global_avgpool, and linear, batchnorm and "
                             "activations after it)"));
      continue;
    }
    if (!windowed) continue;
    ++windows;
    const int64_t k = l.settings.count("kernel"), p = l.settings.count("padding");
    const int64_t st =
        l.settings.count("stride") > 0 ? l.settings.count("stride") : (l.kind == "conv2d" ? 1 : k);
    // Bands give height / stride rows; the layer must too. avgpool2d has no halo exchange.
    const bool avg = l.kind == "avgpool2d";
    if (avg ? p != 0 || k > st : 2 * p < k - st || 2 * p > k - 1)
      report(at, detail::cat("'parallel.spatial: ", s, "' cannot split ", layer, " (kernel ", k,
                             ", stride ", st, ", padding ", p,
                             "): on split images a layer must give height / stride rows (",
                             avg ? "avgpool2d: padding 0 and kernel <= stride"
                                 : "kernel - stride <= 2 · padding <= kernel - 1",
                             ")"));
  }
  if (banded || windows == 0)
    report(at, detail::cat("'parallel.spatial: ", s,
                           "' splits images for the conv2d and pooling layers before a 'flatten' "
                           "or 'global_avgpool'; ",
                           banded ? "the model has neither" : "the model has none before it"));
}

}  // namespace

void parse_parallel(const YAML::Node& node, TrainConfig& c, const ReportProblem& report) {
  ParallelSpec& p = c.parallel;
  p.enabled = true;
  if (!node.IsMap()) {
    report(node, "'parallel' must be a mapping (e.g. {shard: true}), got " + describe_value(node));
    return;
  }
  const std::set<std::string> allowed = {"shard",         "tensor",   "pipeline",
                                         "micro_batches", "schedule", "recompute",
                                         "boundaries",    "balance",  "spatial"};
  for (auto it = node.begin(); it != node.end(); ++it) {
    const std::string key = it->first.as<std::string>();
    if (!allowed.count(key))
      report(it->first, "unknown key '" + key +
                            "' in parallel (allowed: balance, boundaries, micro_batches, "
                            "pipeline, recompute, schedule, shard, spatial, tensor)");
  }
  if (const YAML::Node shard = node["shard"]) {  // true | 1 (ZeRO-1), 3 (ZeRO-3), false | 0
    const std::string v = shard.IsScalar() ? shard.Scalar() : describe_value(shard);
    if (v == "true" || v == "1")
      p.shard = 1;
    else if (v == "3")
      p.shard = 3;
    else if (v != "false" && v != "0")
      report(shard, "'parallel.shard' is '" + v +
                        "' (allowed: true or 1 — the optimizer state sharded, ZeRO-1; 3 — the "
                        "parameters, gradients and optimizer state sharded, ZeRO-3; false)");
  }
  read_scalar(node, "recompute", p.recompute, "true or false", report);
  read_count(node["tensor"], "parallel.tensor", 1, kMaxWays, p.tensor, report);
  read_count(node["pipeline"], "parallel.pipeline", 1, kMaxWays, p.pipeline, report);
  read_count(node["micro_batches"], "parallel.micro_batches", 1, kMaxWays, p.micro_batches, report);
  read_count(node["spatial"], "parallel.spatial", 1, kMaxWays, p.spatial, report);
  read_scalar(node, "schedule", p.schedule, "a string", report);
  if (p.schedule != "gpipe" && p.schedule != "1f1b")
    report(node["schedule"], "'parallel.schedule' is '" + p.schedule + "' (allowed: gpipe, 1f1b)");
  read_scalar(node, "balance", p.balance, "a string", report);
  if (p.balance != "parameters" && p.balance != "measured")
    report(node["balance"],
           "'parallel.balance' is '" + p.balance + "' (allowed: parameters, measured)");
  else if (node["balance"] && node["boundaries"])
    report(node["balance"],
           "'parallel.balance' chooses the cut that 'parallel.boundaries' already gives: set one");

  // The mode it runs beside: the data-parallel axis averages gradients by allreduce.
  if (!c.mpi.enabled || c.mpi.mode != "allreduce")
    report(node, detail::cat("'parallel' splits the model over MPI ranks beside 'distributed: "
                             "{mode: allreduce}'; this config has ",
                             c.mpi.enabled       ? "'distributed.mode: " + c.mpi.mode + "'"
                             : c.hogwild.enabled ? "'distributed.mode: " + c.hogwild.mode + "'"
                                                 : std::string("no 'distributed'"),
                             " (unsupported combination)"));
  // Pipeline settings without a pipeline; micro-batches that do not divide the batch.
  if (p.pipeline == 1)
    for (const char* key : {"micro_batches", "schedule", "recompute", "boundaries", "balance"})
      if (node[key])
        report(node[key], detail::cat("'parallel.", key, "' needs 'parallel.pipeline' > 1"));
  if (c.data.batch_size % p.micro_batches != 0)
    report(node["micro_batches"],
           detail::cat("'parallel.micro_batches' is ", p.micro_batches,
                       ", which does not divide data.batch_size ", c.data.batch_size,
                       " (every micro-batch holds batch_size / micro_batches examples)"));
  const auto layers = static_cast<int64_t>(c.model.size());
  if (p.pipeline > layers && layers > 0)
    report(node["pipeline"],
           detail::cat("'parallel.pipeline' is ", p.pipeline, " stages but the model has ", layers,
                       " layers (every stage needs at least one)"));
  else if (node["boundaries"] && p.pipeline > 1)
    read_boundaries(node["boundaries"], p, layers, report);
  if (p.tensor > 1) check_tensor_split(node["tensor"], c, report);
  if (p.pipeline > 1 && p.shard)
    report(node["shard"],
           "'parallel.shard' with 'parallel.pipeline' (a stage's optimizer state sharded over its "
           "replicas) is not done yet (unsupported combination)");
  if (p.tensor > 1 && p.shard)
    report(node["tensor"],
           "'parallel.tensor' with 'parallel.shard' (a block's optimizer state sharded over its "
           "replicas) is not done yet (unsupported combination)");
  if (p.shard == 3 && c.precision == "fp16")
    report(node["shard"],
           "'parallel.shard: 3' trains in fp32 or bf16 (fp16's loss scaling is not "
           "done through its layers); 'precision: fp16' is an unsupported "
           "combination");
  for (const auto& [key, ways] : {std::pair<const char*, int>{"pipeline", p.pipeline},
                                  {"tensor", p.tensor},
                                  {"spatial", p.spatial}})
    if (node[key] && ways > 1 && c.precision == "fp16")
      report(node[key], detail::cat("'parallel.", key,
                                    "' trains in fp32 or bf16 (fp16's loss scaling is not "
                                    "done over its ranks); 'precision: fp16' is an "
                                    "unsupported combination"));
  if (p.spatial > 1 && (p.tensor > 1 || p.pipeline > 1 || p.shard))
    report(node["spatial"],
           "'parallel.spatial' splits images and does not combine with 'tensor', 'pipeline' or "
           "'shard' (unsupported combination)");
  if (p.spatial > 1) check_spatial_split(node["spatial"], c, report);
}

}  // namespace exadnn::train::internal
