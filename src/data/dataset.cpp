// Dataset's shared helpers and TensorDataset / Subset.
#include "exadnn/data/dataset.h"

#include <cstring>

#include "copy_rows.h"
#include "exadnn/data/height_band.h"
#include "exadnn/data/subset.h"
#include "exadnn/data/tensor_dataset.h"
#include "exadnn/ops/factories.h"
#include "exadnn/ops/inplace.h"

namespace exadnn::data {
namespace {

Shape batch_shape(int64_t batch, const Shape& example) {
  Shape s{batch};
  for (int64_t d : example) s.push_back(d);
  return s;
}

Shape tail_shape(const Tensor& t) {
  Shape s;
  for (int64_t i = 1; i < t.dim(); ++i) s.push_back(t.size(i));
  return s;
}

}  // namespace

Batch Dataset::allocate_batch(int64_t batch_size) const {
  EXADNN_CHECK(batch_size >= 0, "Dataset", "negative batch size ", batch_size);
  return {empty(batch_shape(batch_size, input_shape()), input_dtype()),
          empty(batch_shape(batch_size, target_shape()), target_dtype())};
}

Batch Dataset::get_batch(std::span<const int64_t> indices) const {
  Batch b = allocate_batch(static_cast<int64_t>(indices.size()));
  fetch(indices, b.inputs, b.targets);
  return b;
}

void Dataset::fetch_band(std::span<const int64_t> indices, HeightBand band, const Tensor& inputs,
                         const Tensor& targets) const {
  check_band_batch(indices, band, inputs, targets, "Dataset::fetch_band");
  const Batch whole = get_batch(indices);
  copy_(inputs, cut_band(whole.inputs, band));
  copy_(targets, whole.targets);
}

Tensor Dataset::get_targets(std::span<const int64_t> indices) const {
  return get_batch(indices).targets;
}

Batch Dataset::get(int64_t index) const {
  return get_batch(std::span<const int64_t>(&index, 1));
}

void Dataset::check_indices(std::span<const int64_t> indices, const char* where) const {
  const int64_t n = size();
  for (int64_t i : indices)
    EXADNN_CHECK(i >= 0 && i < n, where, "index ", i, " is out of range for a dataset of ", n,
                 " examples");
}

void Dataset::check_batch(std::span<const int64_t> indices, const Tensor& inputs,
                          const Tensor& targets, const char* where) const {
  const auto b = static_cast<int64_t>(indices.size());
  const auto check = [&](const Tensor& t, const Shape& example, DType dtype, const char* what) {
    const Shape want = batch_shape(b, example);
    EXADNN_CHECK(t.defined() && t.shape() == want && t.dtype() == dtype && t.is_contiguous() &&
                     t.device().is_cpu(),
                 where, "the ", what, " batch must be a contiguous host ", dtype_name(dtype),
                 " tensor of shape ", want, ", got ",
                 t.defined() ? detail::cat(dtype_name(t.dtype()), " ", t.shape(),
                                           t.is_contiguous() ? "" : " (strided)")
                             : std::string("an undefined tensor"));
  };
  check(inputs, input_shape(), input_dtype(), "inputs");
  check(targets, target_shape(), target_dtype(), "targets");
}

void Dataset::check_band_batch(std::span<const int64_t> indices, HeightBand band,
                               const Tensor& inputs, const Tensor& targets,
                               const char* where) const {
  const Shape example = input_shape();
  EXADNN_CHECK(example.size() >= 2 && band.begin >= 0 && band.rows() >= 1 &&
                   band.end <= example[example.size() - 2],
               where, "rows [", band.begin, ", ", band.end,
               ") are not a band of the height of examples of shape ", example);
  const Shape want = batch_shape(static_cast<int64_t>(indices.size()), band_shape(example, band));
  EXADNN_CHECK(inputs.defined() && inputs.shape() == want && inputs.dtype() == input_dtype() &&
                   inputs.is_contiguous() && inputs.device().is_cpu(),
               where, "the inputs of a band must be a contiguous host ", dtype_name(input_dtype()),
               " tensor of shape ", want, ", got ",
               inputs.defined() ? detail::cat(dtype_name(inputs.dtype()), " ", inputs.shape())
                                : std::string("an undefined tensor"));
  const Shape want_targets = batch_shape(static_cast<int64_t>(indices.size()), target_shape());
  EXADNN_CHECK(targets.defined() && targets.shape() == want_targets &&
                   targets.dtype() == target_dtype() && targets.is_contiguous() &&
                   targets.device().is_cpu(),
               where, "the targets batch must be a contiguous host ", dtype_name(target_dtype()),
               " tensor of shape ", want_targets);
}

// --- TensorDataset -------------------------------------------------------------------------------

TensorDataset::TensorDataset(const Tensor& inputs, const Tensor& targets) {
  EXADNN_CHECK(inputs.defined() && targets.defined(), "TensorDataset",
               "inputs and targets must be defined tensors");
  EXADNN_CHECK(inputs.dim() >= 1 && targets.dim() >= 1, "TensorDataset", "inputs ", inputs.shape(),
               " and targets ", targets.shape(), " need a leading example axis");
  EXADNN_CHECK(inputs.size(0) == targets.size(0), "TensorDataset", "inputs ", inputs.shape(),
               " hold ", inputs.size(0), " examples but targets ", targets.shape(), " hold ",
               targets.size(0));
  inputs_ = inputs.detach().to(Device::cpu()).contiguous();
  targets_ = targets.detach().to(Device::cpu()).contiguous();
  n_ = inputs_.size(0);
}

Shape TensorDataset::input_shape() const {
  return tail_shape(inputs_);
}
Shape TensorDataset::target_shape() const {
  return tail_shape(targets_);
}

void TensorDataset::fetch(std::span<const int64_t> indices, const Tensor& inputs,
                          const Tensor& targets) const {
  check_indices(indices, "TensorDataset");
  check_batch(indices, inputs, targets, "TensorDataset");
  internal::copy_rows(inputs_, n_, indices, inputs);
  internal::copy_rows(targets_, n_, indices, targets);
}

void TensorDataset::fetch_band(std::span<const int64_t> indices, HeightBand band,
                               const Tensor& inputs, const Tensor& targets) const {
  check_indices(indices, "TensorDataset");
  check_band_batch(indices, band, inputs, targets, "TensorDataset");
  // Each example is `planes` [H, W] planes (C of [C, H, W]); each plane's band is one run of
  // band.rows() * W elements.
  const Shape example = input_shape();
  const int64_t height = example[example.size() - 2], width = example.back();
  const auto planes = static_cast<size_t>(example.numel() / (height * width));
  const size_t elem = dtype_size(inputs_.dtype()), plane = size_t(height * width) * elem;
  const size_t run = size_t(band.rows() * width) * elem, skip = size_t(band.begin * width) * elem;
  const auto* from = static_cast<const unsigned char*>(inputs_.data_ptr());
  auto* to = static_cast<unsigned char*>(inputs.data_ptr());
  for (size_t b = 0; b < indices.size(); ++b)
    for (size_t c = 0; c < planes; ++c, to += run)
      std::memcpy(to, from + (static_cast<size_t>(indices[b]) * planes + c) * plane + skip, run);
  internal::copy_rows(targets_, n_, indices, targets);
}

Tensor TensorDataset::get_targets(std::span<const int64_t> indices) const {
  check_indices(indices, "TensorDataset");
  // Only the targets: the default would read (and drop) every input row too.
  Tensor targets =
      empty(batch_shape(static_cast<int64_t>(indices.size()), target_shape()), target_dtype());
  internal::copy_rows(targets_, n_, indices, targets);
  return targets;
}

// --- Subset --------------------------------------------------------------------------------------

Subset::Subset(std::shared_ptr<const Dataset> base, std::vector<int64_t> indices)
    : base_(std::move(base)), indices_(std::move(indices)) {
  EXADNN_CHECK(base_ != nullptr, "Subset", "null base dataset");
  base_->check_indices(indices_, "Subset");
}

Subset Subset::range(std::shared_ptr<const Dataset> base, int64_t start, int64_t count) {
  EXADNN_CHECK(base != nullptr, "Subset", "null base dataset");
  EXADNN_CHECK(start >= 0 && count >= 0 && start + count <= base->size(), "Subset", "range [",
               start, ", ", start + count, ") does not fit a dataset of ", base->size(),
               " examples");
  std::vector<int64_t> idx(static_cast<size_t>(count));
  for (int64_t i = 0; i < count; ++i) idx[static_cast<size_t>(i)] = start + i;
  return Subset(std::move(base), std::move(idx));
}

std::vector<int64_t> Subset::base_indices(std::span<const int64_t> indices) const {
  check_indices(indices, "Subset");
  std::vector<int64_t> mapped(indices.size());
  for (size_t i = 0; i < indices.size(); ++i) mapped[i] = indices_[static_cast<size_t>(indices[i])];
  return mapped;
}

Tensor Subset::get_targets(std::span<const int64_t> indices) const {
  return base_->get_targets(base_indices(indices));
}

void Subset::fetch(std::span<const int64_t> indices, const Tensor& inputs,
                   const Tensor& targets) const {
  base_->fetch(base_indices(indices), inputs, targets);
}

void Subset::fetch_band(std::span<const int64_t> indices, HeightBand band, const Tensor& inputs,
                        const Tensor& targets) const {
  base_->fetch_band(base_indices(indices), band, inputs, targets);
}

}  // namespace exadnn::data
