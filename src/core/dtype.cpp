#include "exadnn/core/dtype.h"

#include <algorithm>
#include <string>

#include "exadnn/core/error.h"

namespace exadnn {

const char* dtype_name(DType t) noexcept {
  switch (t) {
    case DType::f32:
      return "f32";
    case DType::f64:
      return "f64";
    case DType::f16:
      return "f16";
    case DType::bf16:
      return "bf16";
    case DType::i32:
      return "i32";
    case DType::i64:
      return "i64";
    case DType::u8:
      return "u8";
    case DType::boolean:
      return "bool";
  }
  return "?";
}

DType parse_dtype(std::string_view name) {
  struct Alias {
    const char* name;
    DType dtype;
  };
  static constexpr Alias kAliases[] = {
      {"f32", DType::f32},      {"float32", DType::f32}, {"float", DType::f32},
      {"f64", DType::f64},      {"float64", DType::f64}, {"double", DType::f64},
      {"f16", DType::f16},      {"float16", DType::f16}, {"half", DType::f16},
      {"fp16", DType::f16},     {"bf16", DType::bf16},   {"bfloat16", DType::bf16},
      {"i32", DType::i32},      {"int32", DType::i32},   {"i64", DType::i64},
      {"int64", DType::i64},    {"u8", DType::u8},       {"uint8", DType::u8},
      {"bool", DType::boolean},
  };
  for (const auto& alias : kAliases)
    if (name == alias.name) return alias.dtype;
  throw Error("parse_dtype", detail::cat("unknown dtype '", name,
                                         "' (expected f32, f64, f16, bf16, i32, i64, u8, bool)"));
}

namespace {
// Rank inside a category: wider types rank higher.
int rank(DType t) {
  switch (t) {
    case DType::boolean:
      return 0;
    case DType::u8:
      return 1;
    case DType::i32:
      return 2;
    case DType::i64:
      return 3;
    case DType::f16:
    case DType::bf16:
      return 4;
    case DType::f32:
      return 5;
    case DType::f64:
      return 6;
  }
  return 0;
}
}  // namespace

DType promote_types(DType a, DType b) noexcept {
  if (a == b) return a;
  if ((a == DType::f16 && b == DType::bf16) || (a == DType::bf16 && b == DType::f16))
    return DType::f32;
  return rank(a) >= rank(b) ? a : b;
}

}  // namespace exadnn
