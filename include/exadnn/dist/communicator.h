// Communicator: a group of MPI ranks and the collectives exadnn needs, on tensors of every dtype.
//
// Every operation is non-blocking and returns a Work handle; tensors must be contiguous and in
// host (or pinned) memory, except that allreduce, allreduce_blocking and broadcast also take
// device tensors through the collectives registered for the device kind (device_collectives.h;
// cuda: link exadnn_dist_cuda, NCCL). fp16 and bf16 reductions go through user-defined MPI ops that
// combine each pair of values in fp32 and round the result to the 16-bit type. Collectives must be
// started in the same order on every rank (as MPI requires); each one is numbered, and a rank that
// waits longer than `timeout` asks the others how far they got and throws a TimeoutError naming the
// ranks that never arrived.
//
// exadnn works on its own duplicate of the MPI communicator it is given, so its messages never
// match the host application's.
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "exadnn/core/error.h"
#include "exadnn/core/tensor.h"
#include "exadnn/dist/work.h"

namespace exadnn::dist {

/// How a reduction combines the ranks' values.
enum class ReduceOp { sum, product, max, min };

/// A collective that waited longer than the communicator's timeout. what() names the operation,
/// the rank that noticed, and the ranks that had not arrived.
class TimeoutError : public Error {
 public:
  using Error::Error;
};

namespace detail {
struct CommState;
}

/// A group of ranks (an MPI communicator duplicate) with tensor collectives.
class Communicator {
 public:
  /// All the processes of the job (MPI_COMM_WORLD), initialising MPI if nobody has.
  static Communicator world();
  /// Made from an MPI communicator the application owns; see dist/mpi_interop.h.
  explicit Communicator(std::shared_ptr<detail::CommState> state);

  int rank() const;
  int size() const;

  /// Ranks with the same `color` form a new communicator, ordered by (`key`, old rank).
  /// Collective over this communicator.
  Communicator split(int color, int key) const;

  /// Longest a wait() may block before it diagnoses missing ranks (default 300 s, or the
  /// EXADNN_DIST_TIMEOUT environment variable in seconds).
  std::chrono::milliseconds timeout() const;
  void set_timeout(std::chrono::milliseconds timeout);

  /// In place: every rank's `t` becomes the reduction over all ranks.
  Work allreduce(Tensor t, ReduceOp op = ReduceOp::sum) const;
  /// allreduce(t, op).wait(), for when nothing is left to overlap: bounded by the timeout (with
  /// the diagnosis naming the missing ranks), like every other wait.
  void allreduce_blocking(Tensor t, ReduceOp op = ReduceOp::sum) const;
  /// In place: every rank's `t` becomes root's.
  Work broadcast(Tensor t, int root) const;
  /// `out` ([size, *in.shape] or any contiguous tensor of size × in.numel()) receives every
  /// rank's `in`, in rank order.
  Work allgather(Tensor out, Tensor in) const;
  /// `in` holds size() equal blocks; rank r's `out` (one block) receives the reduction of block r.
  /// Sums of f32/f64 blocks of 64 KiB or more travel as direct messages, summed by exadnn's
  /// kernels in rank order (a step of ZeRO-1 waited 140 ms on Open MPI 4.1's, 7 ms on this); the
  /// rest is MPI_Ireduce_scatter_block.
  Work reduce_scatter(Tensor out, Tensor in, ReduceOp op = ReduceOp::sum) const;
  /// The reduction lands in root's `t` (other ranks' `t` is unchanged).
  Work reduce(Tensor t, int root, ReduceOp op = ReduceOp::sum) const;
  /// Sends `t` to rank `dst`; `tag` >= 0 tells messages between the same ranks apart.
  Work send(Tensor t, int dst, int tag = 0) const;
  /// Receives into `t` from rank `src` (its shape and dtype must match what was sent).
  Work recv(Tensor t, int src, int tag = 0) const;
  /// Completes when every rank has started it.
  Work barrier() const;

  /// Prints `message` on stderr and ends every process of the job with exit code `code`
  /// (MPI_Abort). For front ends: the library itself throws, never aborts.
  [[noreturn]] void abort(const std::string& message, int code = 1) const;

  /// The state behind this communicator (for dist/ internals and mpi_interop.h).
  const std::shared_ptr<detail::CommState>& state() const { return state_; }

 private:
  std::shared_ptr<detail::CommState> state_;
};

/// Names `ReduceOp` in messages.
const char* to_string(ReduceOp op);

}  // namespace exadnn::dist
