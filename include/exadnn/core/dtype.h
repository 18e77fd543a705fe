// Element types of tensors, their sizes and names, and the promotion rule of mixed arithmetic.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "exadnn/core/half.h"

namespace exadnn {

/// Element type of a tensor.
enum class DType : uint8_t { f32, f64, f16, bf16, i32, i64, u8, boolean };
/// Number of DType values (the size of per-dtype tables).
inline constexpr int kDTypeCount = 8;

/// Bytes per element.
constexpr size_t dtype_size(DType t) noexcept {
  switch (t) {
    case DType::f64:
    case DType::i64:
      return 8;
    case DType::f32:
    case DType::i32:
      return 4;
    case DType::f16:
    case DType::bf16:
      return 2;
    case DType::u8:
    case DType::boolean:
      return 1;
  }
  return 0;
}

/// Short name: "f32", "bf16", "bool", ...
const char* dtype_name(DType t) noexcept;
/// Parses a name produced by dtype_name (also accepts "float32", "half", "bfloat16", ...).
DType parse_dtype(std::string_view name);

/// True for f32, f64, f16, bf16.
constexpr bool is_floating(DType t) noexcept {
  return t == DType::f32 || t == DType::f64 || t == DType::f16 || t == DType::bf16;
}

/// Type of the result of arithmetic between a and b (floating beats integer, wider beats narrower;
/// f16 with bf16 gives f32).
DType promote_types(DType a, DType b) noexcept;

/// The DType of a C++ element type.
template <class T>
struct dtype_of;
template <>
struct dtype_of<float> {
  static constexpr DType value = DType::f32;
};
template <>
struct dtype_of<double> {
  static constexpr DType value = DType::f64;
};
template <>
struct dtype_of<Half> {
  static constexpr DType value = DType::f16;
};
template <>
struct dtype_of<BFloat16> {
  static constexpr DType value = DType::bf16;
};
template <>
struct dtype_of<int32_t> {
  static constexpr DType value = DType::i32;
};
template <>
struct dtype_of<int64_t> {
  static constexpr DType value = DType::i64;
};
template <>
struct dtype_of<uint8_t> {
  static constexpr DType value = DType::u8;
};
template <>
struct dtype_of<bool> {
  static constexpr DType value = DType::boolean;
};
template <class T>
inline constexpr DType dtype_v = dtype_of<T>::value;

/// Calls f with a value of the C++ element type of `t` (f(float{}) for f32, ...).
template <class F>
decltype(auto) visit_dtype(DType t, F&& f) {
  switch (t) {
    case DType::f32:
      return f(float{});
    case DType::f64:
      return f(double{});
    case DType::f16:
      return f(Half{});
    case DType::bf16:
      return f(BFloat16{});
    case DType::i32:
      return f(int32_t{});
    case DType::i64:
      return f(int64_t{});
    case DType::u8:
      return f(uint8_t{});
    case DType::boolean:
      return f(bool{});
  }
  return f(float{});
}

}  // namespace exadnn
