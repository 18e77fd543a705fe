// The strategies a training config names ("distributed: {mode: allreduce, ...}"), as a registry
// users extend, and their settings:
//   MPI ranks, under `mpirun -np P`:
//     distributed: {mode: allreduce, bucket_mb: 25, first_bucket_mb: 1, transport: auto,
//                   timeout_s: 300}
//     distributed: {mode: param_server, servers: 1, asynchronous: false, push_every: 1,
//                   pull_every: 1, timeout_s: 300}
//     distributed: {mode: async_rma, staleness: -1, atomic_reads: false, timeout_s: 300}
//   the threads of one process (asynchronous SGD on one node):
//     distributed: {mode: hogwild | threads_locked | threads_sync, threads: 2, accumulate: 1}
// Without `distributed` a run is one process (the base Strategy). Beside an allreduce run,
//     parallel: {shard: true}
// shards the optimizer state over the ranks (dist::ShardedOptimizer, ZeRO-1), and
//     parallel: {pipeline: P, micro_batches: M, schedule: gpipe | 1f1b, recompute, boundaries,
//                balance: parameters | measured}
// cuts the model list into P stages (dist::PipelineParallel) × ranks / P data-parallel replicas,
// and `parallel: {tensor: T}` splits its linear → activation → linear runs over T ranks ×
// ranks / T replicas; `spatial` is read and checked, but exadnn train does not run it yet.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "exadnn/train/registry.h"
#include "exadnn/train/strategy.h"

namespace exadnn::train {

struct TrainConfig;

/// Settings of the MPI strategies (enabled when `distributed.mode` is one of them).
struct MpiSpec {
  bool enabled = false;
  std::string mode = "allreduce";  ///< allreduce, param_server, async_rma
  double bucket_mb = 25;           ///< allreduce: bucket size (MiB); 0 = one allreduce per tensor
  double first_bucket_mb = 1;      ///< allreduce: first bucket (MiB)
  std::string transport = "auto";  ///< allreduce: auto, mpi, shared_memory (dist::ReducerTransport)
  int servers = 1;                 ///< param_server: server ranks (the last ones)
  bool asynchronous = false;       ///< param_server: Downpour instead of synchronous
  int push_every = 1;              ///< param_server, asynchronous: steps between pushes
  int pull_every = 1;              ///< param_server, asynchronous: steps between pulls
  int64_t staleness = -1;          ///< async_rma: most updates ahead of the slowest (-1: no bound)
  bool atomic_reads = false;       ///< async_rma: MPI_Get_accumulate(NO_OP) instead of MPI_Get
  double timeout_s = 300;          ///< a collective waiting longer names the missing ranks
};

/// How the work of one model is split over the MPI ranks (the config's `parallel:` section, beside
/// `distributed: {mode: allreduce}`). Ranks = data × pipeline × tensor (dist::ProcessGrid).
struct ParallelSpec {
  bool enabled = false;  ///< the config has a `parallel` section
  int shard = 0;     ///< ZeRO stage: 0 none, 1 optimizer state sharded, 3 parameters, gradients too
  int tensor = 1;    ///< ranks that split each Linear → activation → Linear pair
  int pipeline = 1;  ///< pipeline stages (ranks that hold a part of the layers)
  int micro_batches = 1;            ///< pipeline: micro-batches per batch
  std::string schedule = "gpipe";   ///< pipeline: gpipe or 1f1b
  bool recompute = false;           ///< pipeline: recompute activations in backward
  std::vector<int64_t> boundaries;  ///< pipeline: first layers of stages 1.. (empty: balanced)
  /// pipeline without boundaries: "parameters" (stages of near-equal parameter counts) or
  /// "measured" (of near-equal measured forward + backward time on a micro-batch)
  std::string balance = "parameters";
  int spatial = 1;  ///< ranks that split each image along its height
  /// Ranks one model replica occupies (tensor × pipeline × spatial).
  int model_ranks() const { return tensor * pipeline * spatial; }
};

/// Settings of the threaded strategies (async::AsyncTrainer; enabled when `distributed.mode` is
/// one of them).
struct HogwildSpec {
  bool enabled = false;
  std::string mode = "hogwild";  ///< hogwild, threads_locked (mutex-guarded), threads_sync
  int threads = 2;               ///< worker threads
  int accumulate = 1;            ///< local steps per publish (hogwild, threads_locked)
};

struct StrategyKind {
  enum class Family { mpi, threads };
  /// Which section of settings it reads (MpiSpec or HogwildSpec), and which the config parses.
  Family family;
  /// The strategy for a config (an Error if this exadnn lacks what it needs, e.g. MPI).
  std::function<std::unique_ptr<Strategy>(const TrainConfig&)> make;
};

/// allreduce, param_server, async_rma (MPI), hogwild, threads_locked, threads_sync (threads),
/// and every strategy added with strategies().add(name, kind).
Registry<StrategyKind>& strategies();

/// The config's strategy: the one `distributed.mode` names, or one process.
std::unique_ptr<Strategy> make_strategy(const TrainConfig& config);

/// Whether exadnn was built with its MPI strategies (the exadnn_dist library).
bool has_mpi_strategies();

/// Ends every rank of an MPI job with `message` if this process is one (of several) and returns
/// false otherwise; a program calls it on errors so no rank is left waiting for this one.
bool abort_job(const std::string& message, int code);

}  // namespace exadnn::train
