// A training run as a YAML config describes it (what `exadnn train` reads, and any program can):
// parsed, and checked key by key against the registries (layers, losses, optimizers,
// schedulers, datasets, strategies), so every name a user registers from C++ is usable here.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "exadnn/train/class_balance.h"
#include "exadnn/train/datasets.h"
#include "exadnn/train/layers.h"
#include "exadnn/train/optimizers.h"
#include "exadnn/train/schedulers.h"
#include "exadnn/train/strategies.h"

namespace exadnn::train {

struct TrainConfig {
  DataSpec data;
  std::vector<LayerSpec> model;
  std::string loss = "cross_entropy";
  ClassBalanceSpec class_balance;  ///< class_balance: {loss_weights: ..., sampling: ...}
  OptimizerSpec optimizer;
  SchedulerSpec scheduler;
  int64_t epochs = 3;
  int threads = 0;  ///< 0: keep OMP_NUM_THREADS / all cores
  /// Subnormal floats flushed to zero while training (backend/denormals.h): a GEMM on subnormal
  /// operands runs ~200x slower on x86 CPUs.
  bool flush_denormals = true;
  uint64_t seed = 0;
  /// fp32, or bf16 / fp16: the forward pass under an autocast scope of that dtype (fp16 adds a
  /// GradScaler); parameters and optimizer stay f32.
  std::string precision = "fp32";
  /// Where the model trains: cpu, cuda or cuda:N (needs the CUDA backend, exadnn_cuda); batches
  /// are moved there each step. One process only ('distributed' stays on the CPU).
  std::string device = "cpu";
  HogwildSpec hogwild;    ///< distributed: {mode: hogwild | threads_locked | threads_sync, ...}
  MpiSpec mpi;            ///< distributed: {mode: allreduce | param_server | async_rma, ...}
  ParallelSpec parallel;  ///< parallel: {shard, tensor, pipeline, ...} (with mode allreduce)
  std::string source;     ///< the YAML text the config came from (stored in checkpoints)
};

/// The default config: the Fashion-MNIST MLP (784-512-256-10, ReLU, SGD lr 0.05 momentum 0.9).
std::string default_config_yaml();

/// Parses YAML text (`origin` names it in messages) after applying `overrides` ("a.b=value").
/// Every problem found (unknown key, wrong type, bad value) is collected; if any, throws one
/// exadnn::Error listing each with its line and the allowed values.
TrainConfig parse_config(const std::string& yaml_text, const std::string& origin,
                         const std::vector<std::string>& overrides = {});
/// Reads and parses a config file.
TrainConfig load_config(const std::string& path, const std::vector<std::string>& overrides = {});

}  // namespace exadnn::train
