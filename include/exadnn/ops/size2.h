// A (height, width) pair for the sizes of 2-D layer ops: kernel, stride, padding, dilation.
#pragma once

#include <cstdint>
#include <ostream>

namespace exadnn {

/// Height and width; a single integer means the same for both (`Size2(2)` is 2x2).
struct Size2 {
  int64_t h = 0, w = 0;
  constexpr Size2(int64_t both) : h(both), w(both) {}  // NOLINT: `max_pool2d(x, 2)`
  constexpr Size2(int64_t height, int64_t width) : h(height), w(width) {}
  bool operator==(const Size2&) const = default;
};

inline std::ostream& operator<<(std::ostream& os, const Size2& s) {
  return os << "(" << s.h << ", " << s.w << ")";
}

}  // namespace exadnn
