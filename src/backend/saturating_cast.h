// A double converted to a kernel's compute type, saturating at an integer type's range: what a
// clamp bound or scalar argument becomes (clamp(u8, -3, 300) is the identity). Host code shared
// by the CPU and CUDA backends.
#pragma once

#include <limits>
#include <type_traits>

namespace exadnn::backend {

template <class C>
C saturating_cast(double v) {
  if constexpr (std::is_integral_v<C>) {
    const double lo = static_cast<double>(std::numeric_limits<C>::lowest());
    const double hi = static_cast<double>(std::numeric_limits<C>::max());
    return v <= lo ? std::numeric_limits<C>::lowest()
                   : (v >= hi ? std::numeric_limits<C>::max() : static_cast<C>(v));
  } else {
    return static_cast<C>(v);
  }
}

}  // namespace exadnn::backend
