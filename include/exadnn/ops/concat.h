// Concatenation along one dimension.
#pragma once

#include <cstdint>
#include <vector>

#include "exadnn/core/tensor.h"

namespace exadnn {

/// The tensors joined along `dim` (negative counts from the end): every tensor has the same
/// dtype, device and rank, and equal sizes except along `dim`. A new contiguous tensor;
/// differentiable (each input's gradient is its block of the output's).
Tensor cat(const std::vector<Tensor>& tensors, int64_t dim);

}  // namespace exadnn
