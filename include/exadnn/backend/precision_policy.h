// The mixed-precision policy and its scopes, in one place: how f32 matrix products are computed
// (MatmulPrecision, set per scope with MatmulPrecisionGuard or per call with
// matmul(a, b, precision)) and autocast (precision::Autocast). Both are per-thread state: each
// thread starts at fp32 with no autocast, and there is no process-wide mode. The header sits in
// the backend layer, the lowest that needs it: GemmArgs carries the matmul precision to the GEMM
// kernels, the ops consult both, and the backward engine turns autocast off. docs/precision.md
// is the full account; precision/accuracy.h measures how accurate each matmul precision is.
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

namespace precision {

/// This thread's autocast dtype: that of the innermost Autocast scope (f16 or bf16), f32 outside
/// any (or inside Autocast(DType::f32)).
DType autocast_dtype() noexcept;
/// Sets this thread's autocast dtype: f16 or bf16, f32 = off; Error for any other dtype. Prefer
/// a scope (Autocast), which restores the previous dtype.
void set_autocast_dtype(DType dtype);

/// `Autocast scope(DType::bf16);` (or f16) — inside the scope, on this thread:
/// - matmul, linear and conv2d cast their f32, f16 or bf16 operands to the scope's dtype and
///   return 16-bit results. The casts are recorded, so f32 parameters receive f32 gradients. The
///   matmul precision does not apply (it is for f32 operands). conv2d stays in f32 (16-bit
///   inputs taken up to f32) where the backend has no convolution of the scope's dtype.
/// - sum and mean (and what is built on them: logsumexp, LayerNorm), softmax, log_softmax,
///   batch_norm and the losses (nll_loss, cross_entropy, mse_loss, l1_loss, huber_loss,
///   bce_with_logits) take f16 and bf16 inputs up to f32.
/// - Every other op (elementwise, pooling, views) computes in its inputs' dtype; integer and f64
///   inputs are never cast.
/// Gradient rules run in the dtypes the forward pass recorded (backward turns autocast off).
/// Scopes nest, Autocast(DType::f32) turns autocasting off inside, other threads are unaffected;
/// a dtype other than f32, f16 or bf16 is an Error.
class Autocast {
 public:
  explicit Autocast(DType dtype) : previous_(autocast_dtype()) { set_autocast_dtype(dtype); }
  ~Autocast() { set_autocast_dtype(previous_); }
  Autocast(const Autocast&) = delete;
  Autocast& operator=(const Autocast&) = delete;

 private:
  DType previous_;
};

}  // namespace precision

}  // namespace exadnn
