// The state behind a Communicator and a Work (internal to the dist library).
#pragma once

#include <mpi.h>

#include <array>
#include <chrono>
#include <cstdint>
#include <functional>
#include <list>
#include <memory>
#include <string>
#include <vector>

#include "exadnn/core/device.h"
#include "exadnn/core/tensor.h"

namespace exadnn::dist::detail {

/// Two duplicates of the user's communicator: `data` carries the tensors, `control` the
/// liveness queries of a rank whose wait timed out (so they never mix with data messages).
struct CommState {
  MPI_Comm data = MPI_COMM_NULL;
  MPI_Comm control = MPI_COMM_NULL;
  int rank = 0;
  int size = 1;
  std::chrono::milliseconds timeout{300'000};
  /// Collectives started so far on this rank; collective k is the k-th (from 1) on every rank.
  uint64_t collectives_started = 0;
  /// The collective this rank is blocked in (0 when it waits on none), told to peers that ask.
  uint64_t waiting_on = 0;
  /// Liveness queries and answers still being sent (a list: the buffers must not move).
  struct PendingReply {
    MPI_Request request = MPI_REQUEST_NULL;
    std::array<uint64_t, 2> answer{};
  };
  std::list<PendingReply> pending_replies;
  /// Per device kind: what that kind's collectives provider keeps for this communicator (its
  /// NCCL communicator, say), made on first use and destroyed with the communicator.
  std::array<std::shared_ptr<void>, kDeviceKindCount> device_state;

  /// Duplicates `comm` twice (collective over `comm`).
  explicit CommState(MPI_Comm comm);
  ~CommState();  // frees the duplicates unless MPI is already finalised
  CommState(const CommState&) = delete;
  CommState& operator=(const CommState&) = delete;

  /// Answers liveness queries from peers that timed out (cheap when there are none).
  void serve_queries();
};

/// A started operation: its requests, the tensors they touch, and what to do once they are done.
struct WorkState {
  std::shared_ptr<CommState> comm;
  std::vector<MPI_Request> requests;
  std::vector<Tensor> keep_alive;
  std::function<void()> on_complete;
  /// Checks the completed requests' statuses (e.g. a receive's element count); may throw.
  std::function<void(const std::vector<MPI_Status>&)> check_status;
  /// A device collective's completion (no MPI requests then): true once done; may throw.
  std::function<bool()> poll;
  /// Runs when wait() times out, before the TimeoutError (a device provider aborts its work).
  std::function<void()> on_timeout;
  std::string what;         ///< "allreduce of 1000 f32"
  uint64_t collective = 0;  ///< its collective number, 0 for point-to-point
  bool done = false;
};

/// Prints `message` on stderr and ends the processes of `comm` (MPI_Abort) with exit code `code`:
/// Communicator::abort and abort_job (environment.h).
[[noreturn]] void abort_processes(MPI_Comm comm, const std::string& message, int code);

/// Asks every peer how far it got and returns the message of the TimeoutError for `work`.
std::string diagnose_timeout(const WorkState& work, std::chrono::milliseconds waited);

}  // namespace exadnn::dist::detail
