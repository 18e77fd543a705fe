// GradientReducer: averages the gradients of a list of parameters over the ranks of a
// communicator, in buckets whose allreduce starts as soon as the bucket's gradients are ready.
//
// Buckets take the parameters in reverse order (backward produces the last layer's gradients
// first), one dtype per bucket, up to `first_bucket_bytes` for the first bucket (so communication
// starts early) and `bucket_bytes` for the rest; a bucket size of 0 puts every parameter in a
// bucket of its own (no fusion). Buckets are launched strictly in order, so every rank starts the
// same allreduces in the same order even when gradients arrive in a different order. Buckets live
// on the parameters' device (all parameters must share one): on a GPU they are reduced by the
// device collectives of dist/device_collectives.h (NCCL, from exadnn_dist_cuda).
//
// Two transports carry the buckets (ReducerTransport): MPI allreduce, or, when every rank runs
// on one node and the gradients are in host memory, shared memory: the buckets live in one POSIX
// shared-memory segment that all ranks map, and each rank averages its 1/P slice of every bucket
// straight out of the others' memory (no message copies, the division fused into the sum).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "exadnn/core/tensor.h"
#include "exadnn/dist/communicator.h"

namespace exadnn::dist {

namespace detail {
class BucketTransport;
}

/// How a GradientReducer moves its buckets between ranks.
enum class ReducerTransport {
  /// Shared memory when every rank is on one node, the gradients are in host memory and the
  /// segment can be made (/dev/shm has room); MPI otherwise. The environment variable
  /// EXADNN_REDUCER_TRANSPORT=mpi|shared_memory|auto overrides this default.
  automatic,
  mpi,            ///< MPI allreduce (any communicator; device tensors through NCCL)
  shared_memory,  ///< shared memory; an Error saying why when it cannot be used
};
/// "auto", "mpi", "shared_memory".
const char* to_string(ReducerTransport transport);
/// Parses the names to_string gives (an Error naming `where` otherwise).
ReducerTransport parse_reducer_transport(const std::string& name, const std::string& where);

/// Bucket sizes of a GradientReducer (chained setters).
class ReducerOptions {
 public:
  /// Capacity of the first bucket in bytes (default 1 MiB).
  ReducerOptions& first_bucket_bytes(int64_t b) {
    first_bucket_bytes_ = b;
    return *this;
  }
  /// Capacity of the other buckets in bytes (default 25 MiB); 0 = one parameter per bucket.
  ReducerOptions& bucket_bytes(int64_t b) {
    bucket_bytes_ = b;
    return *this;
  }
  /// How buckets travel (default automatic).
  ReducerOptions& transport(ReducerTransport t) {
    transport_ = t;
    return *this;
  }
  int64_t first_bucket_bytes() const { return first_bucket_bytes_; }
  int64_t bucket_bytes() const { return bucket_bytes_; }
  ReducerTransport transport() const { return transport_; }

 private:
  int64_t first_bucket_bytes_ = int64_t{1} << 20;
  int64_t bucket_bytes_ = int64_t{25} << 20;
  ReducerTransport transport_ = ReducerTransport::automatic;
};

/// Sums gradients over ranks bucket by bucket and divides by the number of ranks.
class GradientReducer {
 public:
  /// `params`: floating leaves on one device (their .grad() is reduced; parameters on two devices
  /// are an Error naming both). Collective: checks that every rank
  /// made the same buckets and throws an Error naming the first rank that did not.
  GradientReducer(std::vector<Tensor> params, Communicator comm, ReducerOptions options = {});
  ~GradientReducer();
  GradientReducer(const GradientReducer&) = delete;
  GradientReducer& operator=(const GradientReducer&) = delete;

  /// Parameter `index`'s gradient is final for this step: start the allreduce of every bucket,
  /// in order, whose gradients are all ready (gradients are copied in, divided by the number of
  /// ranks, as their bucket starts). The last bucket is left to finish().
  void mark_ready(size_t index);
  /// Starts the buckets not started yet (a parameter without a gradient contributes zeros), waits
  /// for all, and makes each parameter's .grad() the averaged gradient: a view into its bucket
  /// (no copy), private to this rank until its next backward writes the bucket again. With one
  /// rank, nothing is copied or sent: the gradients are already the average.
  void finish();
  /// True between the first mark_ready() of a step and its finish().
  bool in_step() const { return in_step_; }

  /// Number of buckets, and the parameter indices in bucket `b`.
  size_t num_buckets() const { return buckets_.size(); }
  const std::vector<size_t>& bucket_params(size_t b) const { return buckets_[b].params; }
  /// "3 buckets: [0] 10 f32 (40 B), ..." — what every rank must agree on.
  std::string layout() const;
  /// The transport in use: "mpi" or "shared memory" ("none" with one rank).
  const char* transport_name() const;

  /// Seconds finish() has spent on communication (the last bucket's allreduce and the waits for
  /// the others), summed over steps.
  double wait_seconds() const { return wait_seconds_; }
  const Communicator& communicator() const { return comm_; }

 private:
  struct Bucket {
    std::vector<size_t> params;   // indices into params_
    std::vector<int64_t> offset;  // element offset of each in the bucket
    int64_t numel = 0;            // elements in the bucket
    DType dtype = DType::f32;
    size_t pending = 0;  // gradients not ready yet this step
  };

  void launch_ready_buckets();
  void fill(size_t b);
  void check_layout_agrees();
  void make_transport(ReducerTransport choice);

  std::vector<Tensor> params_;
  Communicator comm_;
  std::vector<Bucket> buckets_;
  std::unique_ptr<detail::BucketTransport> transport_;  // null with one rank
  std::vector<size_t> bucket_of_;                       // parameter index -> bucket
  std::vector<bool> ready_;  // parameter index -> gradient ready this step
  size_t next_launch_ = 0;
  bool in_step_ = false;
  double wait_seconds_ = 0;
};

}  // namespace exadnn::dist
