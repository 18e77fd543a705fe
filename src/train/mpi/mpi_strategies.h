// The MPI strategies (allreduce, allreduce with parallel.shard, param_server, async_rma) over the
// dist layer, in the train library when exadnn is built with MPI (src/CMakeLists.txt);
// strategies.cpp registers them.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "exadnn/train/layers.h"
#include "exadnn/train/strategies.h"

namespace exadnn::train::internal {

/// The strategy of `spec.mode`; with `parallel` (mode allreduce) its layout is checked against
/// the job's rank count first (an Error, the same on every rank, before any message); `layers`
/// is the config's model list (parallel.spatial maps it onto split layers).
std::unique_ptr<Strategy> make_mpi_strategy(const MpiSpec& spec, const ParallelSpec& parallel,
                                            const std::vector<LayerSpec>& layers);

/// parallel: {pipeline: P[, tensor: T]} (pipeline_strategy.cpp), over a data × pipeline × tensor
/// grid of the world's ranks.
std::unique_ptr<Strategy> make_pipeline_strategy(const MpiSpec& spec, const ParallelSpec& parallel);

/// parallel: {tensor: T} (tensor_strategy.cpp), over a data × tensor grid of the world's ranks.
std::unique_ptr<Strategy> make_tensor_strategy(const MpiSpec& spec, const ParallelSpec& parallel);

/// parallel: {spatial: S} (spatial_strategy.cpp), over a data × spatial grid of the world's ranks
/// (the grid's tensor axis holds the S bands of each image); `layers`: the config's model list.
std::unique_ptr<Strategy> make_spatial_strategy(const MpiSpec& spec, const ParallelSpec& parallel,
                                                const std::vector<LayerSpec>& layers);

/// parallel: {shard: 3} (fully_sharded_strategy.cpp): ZeRO-3 over the world's ranks.
std::unique_ptr<Strategy> make_fully_sharded_strategy(const MpiSpec& spec);

/// dist::abort_job: ends every rank of a job of several with `message`; false otherwise.
bool abort_mpi_job(const std::string& message, int code);

}  // namespace exadnn::train::internal
