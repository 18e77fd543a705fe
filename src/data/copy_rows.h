// Rows of a contiguous [N, ...] tensor copied into a contiguous batch: what in-memory datasets
// (TensorDataset) and the on-demand HDF5 dataset (its targets, and examples read in file order
// then put in the batch's order) do per fetch.
#pragma once

#include <cstdint>
#include <cstring>
#include <span>

#include "exadnn/core/tensor.h"

namespace exadnn::data::internal {

/// Rows `indices` of src ([N, ...], contiguous) into dst ([B, ...], contiguous); runs of
/// consecutive indices (an unshuffled loader) become one memcpy each.
inline void copy_rows(const Tensor& src, int64_t n, std::span<const int64_t> indices,
                      const Tensor& dst) {
  const size_t row = n > 0 ? src.nbytes() / static_cast<size_t>(n) : 0;
  const auto* from = static_cast<const unsigned char*>(src.data_ptr());
  auto* to = static_cast<unsigned char*>(dst.data_ptr());
  for (size_t i = 0; i < indices.size();) {
    size_t j = i + 1;
    while (j < indices.size() && indices[j] == indices[j - 1] + 1) ++j;
    std::memcpy(to + i * row, from + static_cast<size_t>(indices[i]) * row, (j - i) * row);
    i = j;
  }
}

}  // namespace exadnn::data::internal
