// Test data whose sums are exact in f32: values k/16 for k in [-16, 16] from a hash of the index,
// so that two kernels summing in different orders must agree bit for bit (the backend's own loops
// against oneDNN's passes).
#pragma once

#include <cstdint>
#include <vector>

#include "exadnn/exadnn.h"

namespace exadnn::testing {

inline Tensor exact_sum_grid(const Shape& shape, uint64_t salt) {
  std::vector<float> v(static_cast<size_t>(shape.numel()));
  for (size_t i = 0; i < v.size(); ++i)
    v[i] = static_cast<float>(static_cast<int64_t>((((i + salt) * 2654435761u) >> 9) % 33) - 16) /
           16.0f;
  return from_vector<float>(v).reshape(shape);
}

}  // namespace exadnn::testing
