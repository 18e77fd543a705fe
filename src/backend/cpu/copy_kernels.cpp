// CPU copy, dtype conversion and fill kernels.
#include <cmath>
#include <cstring>
#include <limits>
#include <type_traits>

#include "exadnn/backend/kernels.h"
#include "exadnn/core/half_convert.h"
#include "loops.h"

namespace exadnn::cpu {

namespace {

// Same-size unsigned integer: copies move bits, never values (NaN payloads survive).
template <size_t Bytes>
struct bits_of;
template <>
struct bits_of<1> {
  using type = uint8_t;
};
template <>
struct bits_of<2> {
  using type = uint16_t;
};
template <>
struct bits_of<4> {
  using type = uint32_t;
};
template <>
struct bits_of<8> {
  using type = uint64_t;
};

template <size_t Bytes>
void copy_kernel(const Tensor& out, const Tensor& src) {
  using Bits = typename bits_of<Bytes>::type;
  map_elements<Bits, Bits, 1>(out, {&src}, [](Bits v) { return v; });
}

// Value conversion that is defined for every input: NaN -> 0 and saturation for integer targets.
template <class To, class From>
To convert(From v) {
  using C = compute_t<From>;
  const C x = static_cast<C>(v);
  if constexpr (std::is_same_v<To, bool>) {
    return x != C(0);
  } else if constexpr (std::is_integral_v<To> && std::is_floating_point_v<C>) {
    if (std::isnan(x)) return To(0);
    constexpr double lo = static_cast<double>(std::numeric_limits<To>::lowest());
    constexpr double hi = static_cast<double>(std::numeric_limits<To>::max());
    const double d = static_cast<double>(x);
    if (d <= lo) return std::numeric_limits<To>::lowest();
    if (d >= hi) return std::numeric_limits<To>::max();
    return static_cast<To>(d);
  } else if constexpr (std::is_same_v<To, Half> || std::is_same_v<To, BFloat16>) {
    return To(static_cast<float>(x));
  } else {
    return static_cast<To>(x);
  }
}

template <class T>
inline constexpr bool kSixteenBit = std::is_same_v<T, Half> || std::is_same_v<T, BFloat16>;
// Conversions with a bulk routine in core/half_convert.h.
template <class To, class From>
inline constexpr bool kBulk = (std::is_same_v<From, float> && kSixteenBit<To>) ||
                              (kSixteenBit<From> && std::is_same_v<To, float>);

template <class From>
void cast_kernel(const Tensor& out, const Tensor& src) {
  visit_dtype(out.dtype(), [&](auto to_tag) {
    using To = decltype(to_tag);
    std::array<const Tensor*, 2> ops{&out, &src};
    StridedLoop<2> loop(out.shape(), ops);
    loop.run([](char** p, const int64_t* s, int64_t n) {
      if (s[0] == sizeof(To) && s[1] == sizeof(From)) {  // dense: a loop the compiler vectorises
        To* o = reinterpret_cast<To*>(p[0]);
        const From* in = reinterpret_cast<const From*>(p[1]);
        if constexpr (kBulk<To, From>) {
          exadnn::convert(in, o, n);  // vectorised f32 <-> f16/bf16 (core/half_convert.h)
        } else {
          for (int64_t i = 0; i < n; ++i) o[i] = convert<To>(in[i]);
        }
        return;
      }
      for (int64_t i = 0; i < n; ++i)
        *reinterpret_cast<To*>(p[0] + i * s[0]) =
            convert<To>(*reinterpret_cast<const From*>(p[1] + i * s[1]));
    });
  });
}

template <class T>
void fill_kernel(const Tensor& out, double value) {
  const T v = convert<T>(value);
  std::array<const Tensor*, 1> ops{&out};
  StridedLoop<1> loop(out.shape(), ops);
  loop.run([v](char** p, const int64_t* s, int64_t n) {
    if (s[0] == sizeof(T)) {
      T* o = reinterpret_cast<T*>(p[0]);
      for (int64_t i = 0; i < n; ++i) o[i] = v;
    } else {
      for (int64_t i = 0; i < n; ++i) *reinterpret_cast<T*>(p[0] + i * s[0]) = v;
    }
  });
}

}  // namespace

void register_copy_kernels(KernelRegistry& r) {
  // Choose the conversion path now: a bad EXADNN_HALF_ISA is then an Error at the first op,
  // never an exception inside a parallel loop.
  (void)half_isa();
  for (int t = 0; t < kDTypeCount; ++t) {
    const DType dtype = static_cast<DType>(t);
    visit_dtype(dtype, [&](auto tag) {
      using T = decltype(tag);
      put<CopyKernel>(r, OpId::copy, dtype, &copy_kernel<sizeof(T)>);
      put<CastKernel>(r, OpId::cast, dtype, &cast_kernel<T>);
      put<FillKernel>(r, OpId::fill, dtype, &fill_kernel<T>);
    });
  }
}

}  // namespace exadnn::cpu
