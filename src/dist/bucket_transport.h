// BucketTransport: how a GradientReducer sums its buckets over the ranks (internal to dist/).
//
// The reducer writes this rank's gradients into input(b), calls start(b) once the bucket is full
// (buckets in the same order on every rank), progress() whenever it can spare a moment during
// backward, and wait(b) at the end of the step; result(b) then holds the bucket's average over
// the ranks. Two transports:
//   - MPI (every communicator; device tensors through the registered device collectives): the
//     bucket is reduced in place with MPI_Iallreduce, the last one with the blocking allreduce.
//   - shared memory (every rank on one node, host tensors): every rank's inputs live in one
//     segment all ranks map; rank r sums slice r of a bucket straight from every rank's input,
//     divides, and writes the average back into every input (shared_memory_transport.cpp).
#pragma once

#include <cstddef>
#include <memory>
#include <string>
#include <vector>

#include "exadnn/core/tensor.h"
#include "exadnn/dist/communicator.h"
#include "exadnn/dist/reducer.h"

namespace exadnn::dist::detail {

/// One bucket: its element count and dtype (every rank's transport gets the same list).
struct BucketShape {
  int64_t numel = 0;
  DType dtype = DType::f32;
  Device device;
};

class BucketTransport {
 public:
  virtual ~BucketTransport() = default;
  /// Where this rank writes bucket b's gradients, multiplied by fill_scale(), before start(b).
  virtual Tensor input(size_t b) = 0;
  /// Where the average of bucket b lies once wait(b) has returned; valid until every rank has
  /// started bucket b of the next step.
  virtual Tensor result(size_t b) = 0;
  /// The factor gradients are multiplied by as they are written into input(): 1/P when the
  /// transport only sums, 1 when it averages itself.
  virtual double fill_scale() const = 0;
  /// Bucket b's input is complete on this rank.
  virtual void start(size_t b) = 0;
  /// Moves started reductions forward without blocking.
  virtual void progress() = 0;
  /// Blocks until bucket b is reduced (TimeoutError, naming the missing ranks, after the
  /// communicator's timeout).
  virtual void wait(size_t b) = 0;
  /// "mpi" or "shared memory".
  virtual const char* name() const = 0;
};

/// In-place MPI allreduce of each bucket (the last one blocking, in wait()).
std::unique_ptr<BucketTransport> make_mpi_transport(const Communicator& comm,
                                                    const std::vector<BucketShape>& buckets);

/// The shared-memory transport, or nullptr (with the reason in *why) when the ranks are not all
/// on one node, the buckets are not in host memory, or the segment cannot be made. Collective.
std::unique_ptr<BucketTransport> make_shared_memory_transport(
    const Communicator& comm, const std::vector<BucketShape>& buckets, std::string* why);

}  // namespace exadnn::dist::detail
