// The MPI strategies (allreduce, allreduce with parallel.shard, param_server, async_rma) over the
// dist layer, in the train library when exadnn is built with MPI (src/CMakeLists.txt);
// strategies.cpp registers them.
#pragma once

#include <memory>
#include <string>

#include "exadnn/train/strategies.h"

namespace exadnn::train::internal {

/// The strategy of `spec.mode`; with `parallel` (mode allreduce) its layout is checked against
/// the job's rank count first (an Error, the same on every rank, before any message).
std::unique_ptr<Strategy> make_mpi_strategy(const MpiSpec& spec, const ParallelSpec& parallel);

/// parallel: {tensor: T} (tensor_strategy.cpp), over a data × tensor grid of the world's ranks.
std::unique_ptr<Strategy> make_tensor_strategy(const MpiSpec& spec, const ParallelSpec& parallel);

/// dist::abort_job: ends every rank of a job of several with `message`; false otherwise.
bool abort_mpi_job(const std::string& message, int code);

}  // namespace exadnn::train::internal
