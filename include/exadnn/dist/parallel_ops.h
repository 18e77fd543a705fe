// Differentiable collectives: graph nodes that move tensors between the ranks of a Communicator,
// the building blocks of tensor, pipeline and spatial parallelism (and of any parallel layer a user
// writes). They come in adjoint pairs: each one's backward is its twin's forward.
//
//   copy_to_group      identity            | allreduce (sum)       of the gradient
//   reduce_from_group  allreduce (sum)     | identity
//   all_reduce         allreduce (sum)     | allreduce (sum)       (consumers compute partials)
//   scatter_to_group   keep own block      | allgather             (the loss is replicated)
//   gather_from_group  allgather           | keep own block        (the loss is replicated)
//   all_gather         allgather           | reduce-scatter        (consumers compute partials)
//   reduce_scatter     reduce-scatter      | allgather
//
// Convention: the loss a training step differentiates is the one every rank computes (replicated),
// so a gradient that arrives at a replicated tensor is already the whole gradient, while a tensor
// whose consumers each compute a part of the result (a column-parallel layer) receives a partial
// gradient that must be summed over the group. Blocks along `dim` are in rank order; the size along
// `dim` must be divisible by the group size (an Error naming the op otherwise).
//
// Every rank of the group must call the same ops in the same order (forward and backward), as MPI
// collectives require. Tensors are host tensors of any dtype; they are made contiguous as needed.
#pragma once

#include <cstdint>

#include "exadnn/core/tensor.h"
#include "exadnn/dist/communicator.h"

namespace exadnn::dist {

/// y = x; backward: dx = Σ_ranks dy. Before a layer whose weights are split over the group.
Tensor copy_to_group(const Tensor& x, const Communicator& comm);
/// y = Σ_ranks x; backward: dx = dy. After a layer whose ranks each computed a partial sum.
Tensor reduce_from_group(const Tensor& x, const Communicator& comm);

/// y = Σ_ranks x; backward: dx = Σ_ranks dy. For a sum every rank then uses on its own part of
/// the data (a statistic over a split image), whose gradient arrives in parts.
Tensor all_reduce(const Tensor& x, const Communicator& comm);

/// x replicated, shape [..., n, ...] (n at `dim`) → rank r's block r, shape [..., n/P, ...];
/// backward all-gathers the gradient.
Tensor scatter_to_group(const Tensor& x, const Communicator& comm, int64_t dim);
/// Every rank's block [..., m, ...] → their concatenation [..., P·m, ...], replicated;
/// backward keeps the rank's own block of the (replicated) gradient.
Tensor gather_from_group(const Tensor& x, const Communicator& comm, int64_t dim);

/// Every rank's block [..., m, ...] → their concatenation [..., P·m, ...], whose consumers compute
/// partial results; backward: reduce-scatter (rank r receives Σ_ranks dy's block r).
Tensor all_gather(const Tensor& x, const Communicator& comm, int64_t dim);
/// Σ_ranks x, shape [..., n, ...] → rank r keeps block r, [..., n/P, ...]; backward all-gathers.
Tensor reduce_scatter(const Tensor& x, const Communicator& comm, int64_t dim);

/// Point to point, differentiable: rank A calls send_to(x, B), rank B calls recv_from(A) in the
/// same order. send_to returns a 0-d zero "token" that depends on x: add it to A's loss, so that
/// A's backward reaches the send, whose backward receives dx from B. recv_from returns x's values
/// as a tensor requiring grad, whose backward sends its gradient back to A. `tag` (>= 0) tells
/// apart pairs between the same ranks. Shapes and dtypes travel with the values.
Tensor send_to(const Tensor& x, const Communicator& comm, int dst, int tag = 0);
Tensor recv_from(const Communicator& comm, int src, int tag = 0);

/// Time this process spent inside the collectives above and the halo exchange
/// (dist/spatial_parallel.h), forward and backward, since the start or the last reset: for
/// benchmarks that split a step into computation and communication. Thread-safe.
struct CollectiveTime {
  double seconds = 0;
  int64_t calls = 0;
};
CollectiveTime parallel_ops_time();
void reset_parallel_ops_time();

namespace detail {
/// Adds one call of `seconds` to parallel_ops_time() (for the ops' implementations).
void add_parallel_ops_time(double seconds);
}  // namespace detail

}  // namespace exadnn::dist
