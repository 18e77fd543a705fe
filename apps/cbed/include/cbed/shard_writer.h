// Writes one shard file (layout in shard_layout.h and the README) from the samples of every rank
// of a communicator: with Debian's parallel libhdf5 (H5Pset_fapl_mpio) the ranks create the file
// and its datasets together and each writes its own rows with one collective write per dataset;
// built against the serial library (the loader's tests) a single process writes all rows.
#pragma once

#include <mpi.h>

#include <string>
#include <vector>

#include "cbed/shard_layout.h"

namespace cbed::shard {

/// This rank's rows of a shard: `labels.size()` samples, `patterns` [n, 3, H, W] float32.
struct ShardRows {
  std::vector<float> patterns;
  std::vector<SampleLabels> labels;
};

/// Creates `path` (replacing a file there) with `header`'s attributes and the rows of every rank
/// of `comm` in rank order; collective over `comm` (every rank calls it, a rank may have 0 rows).
/// Datasets are chunked header.samples_per_chunk samples per chunk and deflated at
/// header.deflate. Error naming the file for a failing HDF5 call, or rows whose pattern size is
/// not header.height x header.width. In a build against serial HDF5, `comm` is ignored.
void write_shard(MPI_Comm comm, const std::string& path, const ShardHeader& header,
                 const ShardRows& mine);

/// True when this process's libhdf5 is the parallel one (H5Pset_fapl_mpio works).
bool parallel_hdf5();

}  // namespace cbed::shard
