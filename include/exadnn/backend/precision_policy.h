// Per-thread precision state that ops consult: how f32 matrix products are computed
// (matmul_precision) and the dtype of an autocast scope. Users set them per scope with
// MatmulPrecisionGuard and precision::Autocast (exadnn/precision/autocast.h), or per call
// (matmul(a, b, precision)). There is no process-wide mode: each thread starts at fp32, no
// autocast.
#pragma once

#include <cstdint>
#include <string_view>

#include "exadnn/core/dtype.h"

namespace exadnn {

/// How a GEMM with f32 operands is computed (16-bit and f64 operands ignore it).
enum class MatmulPrecision : uint8_t {
  fp32,        ///< f32 products and sums
  bf16,        ///< operands rounded to bf16, products summed in f32
  fp16,        ///< operands rounded to fp16, products summed in f32
  split_fp16,  ///< A = A_hi + 2^-11·ΔA (both fp16), three fp16 products, f32 sums: ≈ fp32
  split_bf16,  ///< A = A0 + 2^-8·A1 + 2^-16·A2 (bf16), six bf16 products, f32 sums: ≈ fp32
};
inline constexpr int kMatmulPrecisionCount = 5;

/// "fp32", "bf16", "fp16", "split_fp16", "split_bf16".
const char* matmul_precision_name(MatmulPrecision p) noexcept;
/// Parses a name of matmul_precision_name; Error listing the names otherwise.
MatmulPrecision parse_matmul_precision(std::string_view name);

/// This thread's matmul precision (fp32 until set).
MatmulPrecision matmul_precision() noexcept;
/// Sets this thread's matmul precision.
void set_matmul_precision(MatmulPrecision p) noexcept;

/// Sets this thread's matmul precision for its lifetime, restoring the previous one on exit.
class MatmulPrecisionGuard {
 public:
  explicit MatmulPrecisionGuard(MatmulPrecision p) : previous_(matmul_precision()) {
    set_matmul_precision(p);
  }
  ~MatmulPrecisionGuard() { set_matmul_precision(previous_); }
  MatmulPrecisionGuard(const MatmulPrecisionGuard&) = delete;
  MatmulPrecisionGuard& operator=(const MatmulPrecisionGuard&) = delete;

 private:
  MatmulPrecision previous_;
};

/// This thread's autocast dtype: f16 or bf16 inside an autocast scope, f32 outside.
DType autocast_dtype() noexcept;
/// Sets this thread's autocast dtype (f16 or bf16; f32 = off). Prefer a scope (AutocastGuard).
void set_autocast_dtype(DType dtype);

/// Sets this thread's autocast dtype for its lifetime, restoring the previous one on exit
/// (precision::Autocast documents what autocasting does).
class AutocastGuard {
 public:
  explicit AutocastGuard(DType dtype) : previous_(autocast_dtype()) { set_autocast_dtype(dtype); }
  ~AutocastGuard() { set_autocast_dtype(previous_); }
  AutocastGuard(const AutocastGuard&) = delete;
  AutocastGuard& operator=(const AutocastGuard&) = delete;

 private:
  DType previous_;
};

}  // namespace exadnn
