// The per-thread mixed-precision state: matmul precision and autocast dtype.
#include "exadnn/backend/precision_policy.h"

#include <string>

#include "exadnn/core/error.h"

namespace exadnn {

namespace {
thread_local MatmulPrecision t_matmul_precision = MatmulPrecision::fp32;
thread_local DType t_autocast = DType::f32;
}  // namespace

const char* matmul_precision_name(MatmulPrecision p) noexcept {
  switch (p) {
    case MatmulPrecision::fp32:
      return "fp32";
    case MatmulPrecision::bf16:
      return "bf16";
    case MatmulPrecision::fp16:
      return "fp16";
    case MatmulPrecision::split_fp16:
      return "split_fp16";
    case MatmulPrecision::split_bf16:
      return "split_bf16";
  }
  return "?";
}

MatmulPrecision parse_matmul_precision(std::string_view name) {
  for (int i = 0; i < kMatmulPrecisionCount; ++i) {
    const auto p = static_cast<MatmulPrecision>(i);
    if (name == matmul_precision_name(p)) return p;
  }
  throw Error("matmul_precision", "unknown precision '" + std::string(name) +
                                      "'; expected fp32, bf16, fp16, split_fp16 or split_bf16");
}

MatmulPrecision matmul_precision() noexcept {
  return t_matmul_precision;
}
void set_matmul_precision(MatmulPrecision p) noexcept {
  t_matmul_precision = p;
}

DType precision::autocast_dtype() noexcept {
  return t_autocast;
}
void precision::set_autocast_dtype(DType dtype) {
  EXADNN_CHECK(dtype == DType::f32 || dtype == DType::f16 || dtype == DType::bf16, "autocast",
               "dtype must be f16 or bf16 (f32 turns it off), got ", dtype_name(dtype));
  t_autocast = dtype;
}

}  // namespace exadnn
