// ProcessGrid: the ranks of a job arranged as data × pipeline × tensor, with one communicator per
// axis, so the parallel modes combine: e.g. 2-way tensor × 2-way data on 4 ranks is a
// ParallelMLP over grid.tensor() wrapped in a DataParallel over grid.data().
//
// Rank r sits at (d, p, t) with r = (d · pipeline + p) · tensor + t: the ranks of one tensor group
// are neighbours (the group that talks most), then the pipeline stages, then the data replicas.
//   tensor()    the ranks that differ only in t (same d, p): split a layer's weights
//   pipeline()  the ranks that differ only in p: the stages of one model replica
//   data()      the ranks that differ only in d: replicas that average gradients
// The sizes must multiply to the communicator's size (an Error on every rank, before any message).
#pragma once

#include "exadnn/dist/communicator.h"

namespace exadnn::dist {

/// How many ways each axis splits the ranks (each ≥ 1).
struct GridShape {
  int data = 1, pipeline = 1, tensor = 1;
};

class ProcessGrid {
 public:
  /// Collective over `world` (three communicator splits).
  ProcessGrid(const Communicator& world, GridShape shape);

  const GridShape& shape() const { return shape_; }
  int data_rank() const { return data_.rank(); }
  int pipeline_rank() const { return pipeline_.rank(); }
  int tensor_rank() const { return tensor_.rank(); }

  const Communicator& data() const { return data_; }
  const Communicator& pipeline() const { return pipeline_; }
  const Communicator& tensor() const { return tensor_; }

 private:
  GridShape shape_;
  Communicator data_, pipeline_, tensor_;
};

}  // namespace exadnn::dist
