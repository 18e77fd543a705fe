// A reduce-scatter of large host sums as direct messages (internal to dist/): rank r sends block q
// of its input to rank q and receives block r from every other rank (all messages posted at
// once, on the communicator's control duplicate under a tag of their own), then sums the P blocks
// in rank order with exadnn's own kernels. Open MPI 4.1's MPI_Ireduce_scatter_block takes ~150 ms
// for 2 × 16 MB on one node (its reduction rounds), where this moves the same bytes in a few
// milliseconds (bench/model_parallel_bench.cpp: ZeRO-1 and ZeRO-3 step times).
#pragma once

#include <memory>
#include <string>

#include "comm_state.h"
#include "exadnn/dist/work.h"

namespace exadnn::dist::detail {

/// Whether Communicator::reduce_scatter takes the direct path: a sum of f32 or f64 over at least
/// two ranks, with blocks of at least 64 KiB (smaller ones are latency-bound: MPI's rounds win).
bool use_pairwise_reduce_scatter(int ranks, DType dtype, int64_t block_numel, bool is_sum);

/// Starts the direct reduce-scatter of `in` ([P × n]) into `out` ([n]); the sum lands in `out`
/// when the returned Work completes. Counts as one collective of `comm`.
Work pairwise_reduce_scatter(const std::shared_ptr<CommState>& comm, Tensor out, Tensor in,
                             std::string what);

}  // namespace exadnn::dist::detail
