// Subset: a view of another dataset through a list of its indices (train/validation splits).
#pragma once

#include <memory>
#include <vector>

#include "exadnn/data/dataset.h"

namespace exadnn::data {

/// The examples `indices` of a base dataset, renumbered 0..indices.size()-1.
class Subset : public Dataset {
 public:
  /// Views `base` through `indices` (each in [0, base->size()); repeats allowed).
  Subset(std::shared_ptr<const Dataset> base, std::vector<int64_t> indices);
  /// Examples [start, start + count) of `base`.
  static Subset range(std::shared_ptr<const Dataset> base, int64_t start, int64_t count);

  int64_t size() const override { return static_cast<int64_t>(indices_.size()); }
  Shape input_shape() const override { return base_->input_shape(); }
  DType input_dtype() const override { return base_->input_dtype(); }
  Shape target_shape() const override { return base_->target_shape(); }
  DType target_dtype() const override { return base_->target_dtype(); }
  void fetch(std::span<const int64_t> indices, const Tensor& inputs,
             const Tensor& targets) const override;
  /// Through the base's fetch_band (which may read only the band).
  void fetch_band(std::span<const int64_t> indices, HeightBand band, const Tensor& inputs,
                  const Tensor& targets) const override;
  /// The base's targets of those examples (the base reads only targets where it can).
  Tensor get_targets(std::span<const int64_t> indices) const override;

  /// The base dataset's index of each example.
  const std::vector<int64_t>& indices() const { return indices_; }

 private:
  // `indices` (checked) as the base's indices.
  std::vector<int64_t> base_indices(std::span<const int64_t> indices) const;

  std::shared_ptr<const Dataset> base_;
  std::vector<int64_t> indices_;
};

}  // namespace exadnn::data
