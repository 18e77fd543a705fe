#include "bucket_average.h"

#include <algorithm>
#include <cstring>

#include "exadnn/core/error.h"
#include "exadnn/core/half_convert.h"

namespace exadnn::dist::detail {

namespace {

// Blocks small enough that the running sum stays in L1 while every rank's slice streams past.
constexpr int64_t kBlock = 1024;

// T: the stored type; Acc: the type summed in. load(in, acc, n) widens n values, store(acc, out,
// n) rounds them back.
template <typename T, typename Acc, typename Load, typename Store>
void average_blocks(void* const* arrays, int count, int64_t begin, int64_t end, Acc scale,
                    Load load, Store store) {
  Acc sum[kBlock], term[kBlock];
  for (int64_t i0 = begin; i0 < end; i0 += kBlock) {
    const int64_t n = std::min(kBlock, end - i0);
    load(static_cast<const T*>(arrays[0]) + i0, sum, n);
    for (int q = 1; q < count; ++q) {
      load(static_cast<const T*>(arrays[q]) + i0, term, n);
      for (int64_t j = 0; j < n; ++j) sum[j] += term[j];
    }
    for (int64_t j = 0; j < n; ++j) sum[j] *= scale;
    for (int q = 0; q < count; ++q) store(sum, static_cast<T*>(arrays[q]) + i0, n);
  }
}

template <typename T>
void copy_values(const T* in, T* out, int64_t n) {
  std::memcpy(out, in, static_cast<size_t>(n) * sizeof(T));
}

template <typename Half>
void widen(const Half* in, float* out, int64_t n) {
  convert(in, out, n);
}
template <typename Half>
void narrow(const float* in, Half* out, int64_t n) {
  convert(in, out, n);
}

}  // namespace

void average_into_all(DType dtype, void* const* arrays, int count, int64_t begin, int64_t end,
                      double scale) {
  switch (dtype) {
    case DType::f32:
      return average_blocks<float, float>(arrays, count, begin, end, static_cast<float>(scale),
                                          copy_values<float>, copy_values<float>);
    case DType::f64:
      return average_blocks<double, double>(arrays, count, begin, end, scale, copy_values<double>,
                                            copy_values<double>);
    case DType::f16:
      return average_blocks<Half, float>(arrays, count, begin, end, static_cast<float>(scale),
                                         widen<Half>, narrow<Half>);
    case DType::bf16:
      return average_blocks<BFloat16, float>(arrays, count, begin, end, static_cast<float>(scale),
                                             widen<BFloat16>, narrow<BFloat16>);
    default:
      throw Error("dist::GradientReducer",
                  exadnn::detail::cat("cannot average ", dtype_name(dtype), " gradients"));
  }
}

}  // namespace exadnn::dist::detail
