// The MPI modes of the config's `distributed:` section:
//   distributed: {mode: allreduce, bucket_mb: 25, first_bucket_mb: 1, transport: auto,
//                 timeout_s: 300}
//   distributed: {mode: param_server, servers: 1, asynchronous: false, push_every: 1, pull_every:
//   1} distributed: {mode: async_rma, staleness: -1, atomic_reads: false, timeout_s: 300}
// Run them under `mpirun -np P exadnn train ...`. The shared-memory modes of the same section are
// in hogwild_config.h.
#pragma once

#include <cstdint>
#include <functional>
#include <string>

namespace YAML {
class Node;
}

namespace exadnn::cli {

/// Settings of MPI training (enabled when `distributed.mode` is allreduce, param_server or
/// async_rma).
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

/// Whether `mode` names an MPI mode.
bool is_mpi_mode(const std::string& mode);

/// Reads the `distributed` mapping into `spec` when its mode is an MPI one (else returns false).
/// Each problem goes to `report` with the node it is about.
bool parse_mpi(const YAML::Node& distributed, MpiSpec& spec,
               const std::function<void(const YAML::Node& at, const std::string& message)>& report);

}  // namespace exadnn::cli
