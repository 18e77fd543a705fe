// Hdf5Dataset (data/hdf5_dataset.h): the targets held, the inputs read per batch through the HDF5
// plugin's read_examples (ascending distinct rows; the batch's order restored by row copies).
#include "exadnn/data/hdf5_dataset.h"

#include <algorithm>
#include <vector>

#include "copy_rows.h"
#include "data/hdf5_api.h"
#include "exadnn/data/hdf5.h"
#include "exadnn/data/height_band.h"
#include "exadnn/ops/factories.h"

namespace exadnn::data {
namespace {

constexpr const char* kWhere = "Hdf5Dataset";

}  // namespace

Hdf5Dataset::Hdf5Dataset(std::string path, std::string inputs_name, const std::string& targets_name,
                         DType input_dtype, NonFinite non_finite)
    : path_(std::move(path)),
      inputs_name_(std::move(inputs_name)),
      input_dtype_(input_dtype),
      non_finite_(non_finite) {
  Shape shape;
  DType stored = DType::f32;
  internal::hdf5_api().describe(path_, inputs_name_, &shape, &stored);
  Tensor y = read_hdf5(path_, targets_name, non_finite_);
  internal::check_examples(path_, inputs_name_, shape, targets_name, y.shape());
  n_ = shape[0];
  for (int64_t d = 1; d < shape.size(); ++d) example_.push_back(shape[d]);
  targets_ = (is_floating(y.dtype()) ? y.to(DType::f32) : y.to(DType::i64)).contiguous();
  if (non_finite_ == NonFinite::reject)
    check_finite(targets_, path_, detail::cat("dataset '", targets_name, "' as f32"));
}

Shape Hdf5Dataset::target_shape() const {
  Shape s;
  for (int64_t d = 1; d < targets_.dim(); ++d) s.push_back(targets_.size(d));
  return s;
}

void Hdf5Dataset::read_inputs(std::span<const int64_t> indices, HeightBand band,
                              const Tensor& inputs) const {
  std::vector<int64_t> rows(indices.begin(), indices.end());
  std::sort(rows.begin(), rows.end());
  rows.erase(std::unique(rows.begin(), rows.end()), rows.end());
  const bool in_order = std::equal(rows.begin(), rows.end(), indices.begin(), indices.end());
  Tensor file_order = inputs;  // the batch itself when its indices are ascending and distinct
  if (!in_order) {
    Shape shape{static_cast<int64_t>(rows.size())};
    for (int64_t d = 1; d < inputs.dim(); ++d) shape.push_back(inputs.size(d));
    file_order = empty(shape, input_dtype_);
  }
  internal::hdf5_api().read_examples(path_, inputs_name_, rows, band, file_order);
  if (!in_order) {
    std::vector<int64_t> at(indices.size());  // each index's row in file_order
    for (size_t k = 0; k < indices.size(); ++k)
      at[k] = std::lower_bound(rows.begin(), rows.end(), indices[k]) - rows.begin();
    internal::copy_rows(file_order, static_cast<int64_t>(rows.size()), at, inputs);
  }
  if (non_finite_ == NonFinite::reject && is_floating(input_dtype_))
    check_finite(inputs, path_, detail::cat("dataset '", inputs_name_, "'"));
}

void Hdf5Dataset::fetch(std::span<const int64_t> indices, const Tensor& inputs,
                        const Tensor& targets) const {
  check_indices(indices, kWhere);
  check_batch(indices, inputs, targets, kWhere);
  read_inputs(indices, HeightBand{}, inputs);
  internal::copy_rows(targets_, n_, indices, targets);
}

void Hdf5Dataset::fetch_band(std::span<const int64_t> indices, HeightBand band,
                             const Tensor& inputs, const Tensor& targets) const {
  check_indices(indices, kWhere);
  check_band_batch(indices, band, inputs, targets, kWhere);
  read_inputs(indices, band, inputs);
  internal::copy_rows(targets_, n_, indices, targets);
}

Tensor Hdf5Dataset::get_targets(std::span<const int64_t> indices) const {
  check_indices(indices, kWhere);
  Shape shape{static_cast<int64_t>(indices.size())};
  for (int64_t d = 1; d < targets_.dim(); ++d) shape.push_back(targets_.size(d));
  Tensor out = empty(shape, target_dtype());
  internal::copy_rows(targets_, n_, indices, out);
  return out;
}

}  // namespace exadnn::data
