// Height bands of examples: what a spatial-parallel rank reads (its rows of every image, never the
// whole image), and the view of a dataset that yields them.
//
//   HeightBand mine = height_band(set->input_shape(), rank, ranks);   // rows of [C, H, W]
//   DataLoader loader(std::make_shared<HeightBandView>(set, mine), options);  // [B, C, h, W]
//
// (DataLoaderOptions::height_band does the same inside a loader, and falls back to whole examples
// where its transform needs them.)
#pragma once

#include <memory>

#include "exadnn/data/dataset.h"

namespace exadnn::data {

/// Band `part` of `parts` equal bands of the height of examples of shape `example` (at least 2
/// axes; the height is the second to last). Error naming the shape unless `parts` divides it.
HeightBand height_band(const Shape& example, int part, int parts);

/// `example` with its height axis cut to `band`.
Shape band_shape(const Shape& example, HeightBand band);

/// The band's rows of whole examples: x [B, ..., H, W] -> a new contiguous [B, ..., rows, W].
Tensor cut_band(const Tensor& x, HeightBand band);

/// A dataset's examples cut to one band of their height: input_shape() is the band's, fetch()
/// goes through the base's fetch_band(), which reads only the band where the base can (an
/// in-memory tensor, a file by hyperslab). Targets are the base's.
class HeightBandView : public Dataset {
 public:
  HeightBandView(std::shared_ptr<const Dataset> base, HeightBand band);

  int64_t size() const override { return base_->size(); }
  Shape input_shape() const override { return band_shape(base_->input_shape(), band_); }
  DType input_dtype() const override { return base_->input_dtype(); }
  Shape target_shape() const override { return base_->target_shape(); }
  DType target_dtype() const override { return base_->target_dtype(); }
  void fetch(std::span<const int64_t> indices, const Tensor& inputs,
             const Tensor& targets) const override {
    base_->fetch_band(indices, band_, inputs, targets);
  }
  Tensor get_targets(std::span<const int64_t> indices) const override {
    return base_->get_targets(indices);
  }

  const Dataset& base() const { return *base_; }
  HeightBand band() const { return band_; }

 private:
  std::shared_ptr<const Dataset> base_;
  HeightBand band_;
};

}  // namespace exadnn::data
