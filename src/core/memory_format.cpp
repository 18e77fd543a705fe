// The memory-format checks of memory_format.h.
#include "exadnn/core/memory_format.h"

#include <algorithm>
#include <numeric>
#include <vector>

namespace exadnn {

bool is_channels_last(const Tensor& t) {
  if (t.dim() != 4) return false;
  const Shape& s = t.shape();
  const Strides& st = t.strides();
  // Innermost first: C, W, H, N.
  int64_t expected = 1;
  for (int64_t d : {1, 3, 2, 0}) {
    if (s[d] == 1) continue;
    if (st[d] != expected) return false;
    expected *= s[d];
  }
  return true;
}

bool is_dense(const Tensor& t) {
  const Shape& s = t.shape();
  const Strides& st = t.strides();
  std::vector<int64_t> dims;  // the dimensions that move, innermost (smallest stride) first
  for (int64_t d = 0; d < t.dim(); ++d)
    if (s[d] != 1) dims.push_back(d);
  std::sort(dims.begin(), dims.end(), [&](int64_t a, int64_t b) { return st[a] < st[b]; });
  int64_t expected = 1;
  for (int64_t d : dims) {
    if (st[d] != expected) return false;
    expected *= s[d];
  }
  return true;
}

}  // namespace exadnn
