#include "cudnn_conv_algorithm.h"

#include <algorithm>
#include <array>
#include <iterator>
#include <map>
#include <mutex>

namespace exadnn::cuda {

namespace {

// Everything that can change cuDNN's candidates or their speed.
using Key = std::array<int64_t, 18>;

Key key_of(int device, ConvDirection direction, const Conv2dGeometry& g, DType dtype, bool tf32) {
  const int64_t call[] = {device, static_cast<int64_t>(direction), static_cast<int64_t>(dtype),
                          tf32};
  const int64_t shape[] = {g.n,     g.c,          g.h,          g.w,        g.o,
                           g.kh,    g.kw,         g.stride_h,   g.stride_w, g.pad_h,
                           g.pad_w, g.dilation_h, g.dilation_w, g.groups};
  Key key{};
  std::copy(std::begin(call), std::end(call), key.begin());
  std::copy(std::begin(shape), std::end(shape), key.begin() + std::size(call));
  return key;
}

}  // namespace

ConvAlgorithm cached_conv_algorithm(int device, ConvDirection direction, const Conv2dGeometry& g,
                                    DType dtype, bool tf32,
                                    const std::function<ConvAlgorithm()>& measure) {
  static std::mutex mutex;
  static std::map<Key, ConvAlgorithm> chosen;
  const Key key = key_of(device, direction, g, dtype, tf32);
  {
    const std::lock_guard<std::mutex> lock(mutex);
    const auto it = chosen.find(key);
    if (it != chosen.end()) return it->second;
  }
  // Measured outside the lock (it launches kernels); two threads may both measure one problem.
  const ConvAlgorithm algorithm = measure();
  const std::lock_guard<std::mutex> lock(mutex);
  return chosen.emplace(key, algorithm).first->second;
}

}  // namespace exadnn::cuda
