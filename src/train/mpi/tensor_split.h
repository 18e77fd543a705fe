// TensorSplit: a config's sequential model with every linear → activation → linear run split over
// the tensor axis of a ProcessGrid (the layers of `parallel: {tensor: T}`): the first linear
// becomes a dist::ColumnParallelLinear (output features split, no gather), the second a
// dist::RowParallelLinear (input features split, one allreduce); every other layer is shared with
// the whole model (replicated on the tensor ranks). The split model has the whole model's layers
// one for one and its parameters in the same order, so a parameter index means the same in both
// (weights then biases, as nn::Linear).
//
// Used by the tensor strategy (tensor_strategy.cpp) and by the pipeline strategy for tensor ×
// pipeline runs (pipeline_strategy.cpp: each stage's runs split over its tensor ranks).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "exadnn/core/state_dict.h"
#include "exadnn/dist/process_grid.h"
#include "exadnn/dist/tensor_parallel.h"
#include "exadnn/nn/container.h"
#include "exadnn/nn/linear.h"

namespace exadnn::train::internal {

class TensorSplit {
 public:
  /// Builds the split layers (collective-free; every rank builds alike). `whole` stays the
  /// caller's.
  TensorSplit(std::shared_ptr<nn::Sequential> whole, const dist::ProcessGrid& grid);

  /// The model with its runs split: the same number of layers as the whole one.
  const std::shared_ptr<nn::Sequential>& model() const { return split_; }
  /// Linear runs split.
  size_t runs() const { return pairs_.size(); }

  /// The split layers take this rank's blocks of the whole model's weights (after a checkpoint
  /// was loaded into it too).
  void take_blocks();
  /// Copies every split parameter, gathered over the tensor ranks, into the whole model
  /// (collective over the tensor axis).
  void gather_into_whole();

  /// Parameter `index` (of either model) whole, from this rank's `mine` (collective; a replicated
  /// parameter is copied).
  Tensor gather(const Tensor& mine, size_t index) const;
  /// This rank's block of parameter `index` from the whole `value` (a replicated one as it is).
  Tensor block(const Tensor& value, size_t index) const;

  /// An optimizer's state over the split parameters ("3.momentum_buffer", ...) in the one-process
  /// layout (collective), and back.
  StateDict gather_optimizer_state(const StateDict& mine) const;
  StateDict block_optimizer_state(const StateDict& whole) const;

 private:
  // The axis an optimizer entry ("3.momentum_buffer": parameter 3's) is split along (0: rows,
  // 1: columns), or -1 (replicated, a dot-less name like "step", or a scalar).
  int split_dim(const std::string& entry, const Tensor& value) const;
  // The whole tensor from every tensor rank's block along `dim` (-1: a copy), and back.
  Tensor gather_along(const Tensor& mine, int dim) const;
  Tensor block_along(const Tensor& value, int dim) const;

  std::shared_ptr<nn::Sequential> whole_, split_;
  const dist::ProcessGrid& grid_;
  std::vector<int> split_dims_;  // per parameter: the axis it is split along, or -1
  struct Pair {  // a linear → activation → linear run and the layers that split it
    nn::Linear *up, *down;
    std::shared_ptr<dist::ColumnParallelLinear> column;
    std::shared_ptr<dist::RowParallelLinear> row;
  };
  std::vector<Pair> pairs_;
};

}  // namespace exadnn::train::internal
