// Height bands: the band arithmetic, cutting a band out of whole examples, and HeightBandView.
#include "exadnn/data/height_band.h"

namespace exadnn::data {

HeightBand height_band(const Shape& example, int part, int parts) {
  EXADNN_CHECK(example.size() >= 2, "data::height_band",
               "splits the height (second to last axis) of examples with at least 2 axes; these "
               "have shape ",
               example);
  const int64_t height = example[example.size() - 2];
  EXADNN_CHECK(parts >= 1 && part >= 0 && part < parts, "data::height_band", "band ", part, " of ",
               parts, " does not exist");
  EXADNN_CHECK(height % parts == 0, "data::height_band", "examples of shape ", example, " have ",
               height, " rows, which do not split into ", parts, " equal bands");
  const int64_t rows = height / parts;
  return {part * rows, (part + 1) * rows};
}

Shape band_shape(const Shape& example, HeightBand band) {
  Shape s = example;
  s[s.size() - 2] = band.rows();
  return s;
}

Tensor cut_band(const Tensor& x, HeightBand band) {
  EXADNN_CHECK(x.dim() >= 3, "data::cut_band", "expects a batch [B, ..., H, W], got ", x.shape());
  EXADNN_CHECK(band.begin >= 0 && band.end <= x.size(x.dim() - 2) && band.rows() >= 1,
               "data::cut_band", "rows [", band.begin, ", ", band.end, ") of a batch ", x.shape());
  return x.narrow(x.dim() - 2, band.begin, band.rows()).contiguous();
}

HeightBandView::HeightBandView(std::shared_ptr<const Dataset> base, HeightBand band)
    : base_(std::move(base)), band_(band) {
  EXADNN_CHECK(base_ != nullptr, "data::HeightBandView", "null base dataset");
  const Shape example = base_->input_shape();
  EXADNN_CHECK(example.size() >= 2, "data::HeightBandView",
               "cuts the height (second to last axis) of examples with at least 2 axes; these "
               "have shape ",
               example);
  const int64_t height = example[example.size() - 2];
  EXADNN_CHECK(band.begin >= 0 && band.end <= height && band.rows() >= 1, "data::HeightBandView",
               "rows [", band.begin, ", ", band.end, ") are not a band of examples of shape ",
               example);
}

}  // namespace exadnn::data
