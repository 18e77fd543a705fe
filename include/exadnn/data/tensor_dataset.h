// TensorDataset: examples held in memory as two tensors, inputs [N, ...] and targets [N, ...].
#pragma once

#include "exadnn/data/dataset.h"

namespace exadnn::data {

/// In-memory dataset over inputs [N, ...] and targets [N] or [N, ...]; fetch() is one memcpy per
/// run of consecutive indices.
class TensorDataset : public Dataset {
 public:
  /// Takes inputs [N, ...] and targets [N] or [N, ...] (same N). Both are moved to host memory and
  /// made contiguous (no copy when they already are) and detached from autograd.
  TensorDataset(const Tensor& inputs, const Tensor& targets);

  int64_t size() const override { return n_; }
  Shape input_shape() const override;
  DType input_dtype() const override { return inputs_.dtype(); }
  Shape target_shape() const override;
  DType target_dtype() const override { return targets_.dtype(); }
  void fetch(std::span<const int64_t> indices, const Tensor& inputs,
             const Tensor& targets) const override;
  /// One memcpy per example and channel plane: only the band's rows are read.
  void fetch_band(std::span<const int64_t> indices, HeightBand band, const Tensor& inputs,
                  const Tensor& targets) const override;
  /// The targets of `indices` alone ([B, ...]), without copying their inputs.
  Tensor get_targets(std::span<const int64_t> indices) const override;

  /// All inputs, [N, ...] (contiguous, host).
  const Tensor& inputs() const { return inputs_; }
  /// All targets, [N] or [N, ...] (contiguous, host).
  const Tensor& targets() const { return targets_; }

 private:
  Tensor inputs_;
  Tensor targets_;
  int64_t n_ = 0;
};

}  // namespace exadnn::data
