// Plain arguments of the CUDA kernels, shared by the C++ wrappers (g++) and the .cu files (nvcc).
//
// The .cu files see no exadnn headers: the wrappers (`*_kernels.cpp`) turn Tensors into these
// fixed-size structs, passed to the kernels by value, and call the `launch_*` functions declared
// here. Every launcher runs on the legacy default stream of the current device (the wrappers set
// the device) and checks the launch; it never synchronises.
#pragma once

#include <cstdint>

namespace exadnn::cuda {

/// Dims a kernel iterates over after merging (exadnn tensors have up to 12; merged ones rarely 3).
inline constexpr int kMaxKernelDims = 8;

/// Element type codes; the same numbering as exadnn::DType (checked in tensor_args.cpp).
enum class ElemType : uint8_t { f32, f64, f16, bf16, i32, i64, u8, boolean };

/// The iteration space shared by the operands of an elementwise kernel: sizes, row-major
/// (last axis fastest), after dropping size-1 axes and merging axes dense for every operand.
struct IterShape {
  int ndim = 0;
  int64_t numel = 0;
  int64_t size[kMaxKernelDims] = {};
};

/// One operand: the address of its first element and its element strides over IterShape.
struct Operand {
  void* data = nullptr;
  int64_t stride[kMaxKernelDims] = {};
};

// ---- elementwise (elementwise.cu) -----------------------------------------------------------

/// Unary ops, in the order of their launch switch.
enum class UnaryOp : uint8_t {
  neg,
  abs,
  exp,
  log,
  sqrt,
  tanh,
  sigmoid,
  relu,
  clamp,
  pow_scalar,
  sign
};
/// Binary arithmetic ops (out has the operands' type).
enum class BinaryOp : uint8_t { add, sub, mul, div, pow, maximum, minimum, relu_backward };
/// Comparisons (out is bool).
enum class CompareOp : uint8_t { eq, ne, lt, le, gt, ge };

/// out = in, moving the bits of elements of `elem_bytes` bytes (1, 2, 4 or 8).
void launch_copy(const IterShape& s, Operand out, Operand in, int elem_bytes);
/// out (type `to`) = convert(in (type `from`)): NaN -> 0 and saturation for integer targets,
/// x != 0 for bool.
void launch_cast(const IterShape& s, Operand out, ElemType to, Operand in, ElemType from);
/// Every element of out = value converted to `type`.
void launch_fill(const IterShape& s, Operand out, ElemType type, double value);
/// out = op(in); `a`, `b`: clamp's bounds, pow_scalar's exponent (a).
void launch_unary(UnaryOp op, ElemType type, const IterShape& s, Operand out, Operand in, double a,
                  double b);
/// out = op(x, y).
void launch_binary(BinaryOp op, ElemType type, const IterShape& s, Operand out, Operand x,
                   Operand y);
/// out (bool) = x op y.
void launch_compare(CompareOp op, ElemType type, const IterShape& s, Operand out, Operand x,
                    Operand y);
/// out = cond ? x : y; cond is bool, `elem_bytes` the size of x's elements.
void launch_where(const IterShape& s, Operand out, Operand cond, Operand x, Operand y,
                  int elem_bytes);

// ---- reductions (reduce.cu) -----------------------------------------------------------------

/// Reduction ops over the last axes.
enum class ReduceOp : uint8_t { sum, max, min };

/// out[r] = reduce over j of in(r, j), for rows r in [0, rows) and j in [0, cols). The input
/// element (r, j) is at `in.data + offset(r over row_shape) + offset(j over col_shape)`, each
/// offset from its own shape and strides; out is dense [rows]. Floating sums accumulate in f64,
/// integer sums in i64; max/min propagate NaN.
void launch_reduce(ReduceOp op, ElemType type, const IterShape& row_shape, Operand row_in,
                   const IterShape& col_shape, Operand col_in, void* out);
/// out[r] (i64) = index of the max (`greatest`) or min over the last axis (`cols` elements at
/// stride `col_stride`) of row r; first index on ties, NaN wins.
void launch_arg_reduce(bool greatest, ElemType type, const IterShape& row_shape, Operand row_in,
                       int64_t cols, int64_t col_stride, void* out);
/// Blocks of the first pass of launch_sum_squares (its scratch holds kSumSquaresBlocks + 1).
inline constexpr int kSumSquaresBlocks = 256;
/// Σ x² over n dense elements of x (a floating type), accumulated in f64 in a fixed order
/// (deterministic); leaves the sum in scratch[kSumSquaresBlocks] (device memory holding
/// kSumSquaresBlocks + 1 doubles).
void launch_sum_squares(ElemType type, const void* x, int64_t n, double* scratch);

// ---- optimizer updates (optim.cu) -----------------------------------------------------------

/// SGD scalars in the parameter's type order of operations (see backend/optim_kernels.h).
struct SgdArgs {
  double sign, wd, momentum, one_minus_dampening, neg_lr;
  bool has_wd, has_momentum, first, nesterov;
};
/// Adam / AdamW scalars, derived in double on the host as the CPU kernel does.
struct AdamArgs {
  double sign, wd, decay, beta1, one_minus_beta1, beta2, one_minus_beta2, bc2_sqrt, eps,
      neg_step_size;
  bool l2, decoupled, amsgrad;
};
/// Adagrad scalars.
struct AdagradArgs {
  double sign, wd, neg_clr, eps;
  bool has_wd;
};
/// RMSprop scalars.
struct RmspropArgs {
  double sign, wd, alpha, one_minus_alpha, eps, momentum, neg_lr;
  bool has_wd, has_momentum, centered;
};
/// In-place fused updates over n dense elements of `type` (f32 or f64); unused buffers null.
void launch_sgd_step(ElemType type, void* param, const void* grad, void* buf, int64_t n,
                     const SgdArgs& a);
void launch_adam_step(ElemType type, void* param, const void* grad, void* m, void* v, void* vmax,
                      int64_t n, const AdamArgs& a);
void launch_adagrad_step(ElemType type, void* param, const void* grad, void* sum, int64_t n,
                         const AdagradArgs& a);
void launch_rmsprop_step(ElemType type, void* param, const void* grad, void* square_avg,
                         void* momentum_buffer, void* grad_avg, int64_t n, const RmspropArgs& a);

// ---- batch normalisation (batch_norm.cu) ----------------------------------------------------

/// x viewed as [n, c, spatial]; statistics per channel over n and spatial.
struct BatchNormShape {
  int64_t n, c, spatial;
  double eps;
};
/// y = (x - mean) / sqrt(var + eps) · scale + shift per channel (f32 or f64). `training`: mean
/// and var [c] are written with the batch mean and biased variance first; else read. scale and
/// shift may be null (1 and 0).
void launch_batch_norm_forward(ElemType type, const BatchNormShape& s, bool training, const void* x,
                               const void* scale, const void* shift, void* mean, void* var,
                               void* y);
/// Gradients of the forward (mean/var as it used them; functions of x when `training`):
/// grad_x always, grad_scale/grad_shift [c] when not null.
void launch_batch_norm_backward(ElemType type, const BatchNormShape& s, bool training,
                                const void* grad_y, const void* x, const void* scale,
                                const void* mean, const void* var, void* grad_x, void* grad_scale,
                                void* grad_shift);

// ---- GEMM helpers (half_pack.cu) ------------------------------------------------------------

/// Splits the f32 matrix src [rows, cols] (row stride `ld` elements) into packed 16-bit pieces
/// dst[p] [rows, cols] (dense): `pieces` = 1 rounds to `half_type` (f16 or bf16); split fp16
/// (pieces = 2): hi = fp16(x), lo = fp16((x - hi) · 2^11); split bf16 (pieces = 3):
/// p0 = bf16(x), p1 = bf16((x - p0) · 2^8), p2 = bf16((x - p0 - 2^-8 p1) · 2^16).
void launch_split_f32(const float* src, int64_t rows, int64_t cols, int64_t ld, ElemType half_type,
                      int pieces, void* const* dst);

/// C[rows, cols] (row stride ld, elements of `type`) = beta · C; beta = 0 writes zeros (C may
/// hold NaN). What a GEMM with k = 0 computes.
void launch_scale_matrix(ElemType type, void* c, int64_t rows, int64_t cols, int64_t ld,
                         double beta);

/// Checks the last kernel launch; throws exadnn::Error naming `what` (implemented in
/// cuda_check.cpp).
void check_launch(const char* what);
/// Throws exadnn::Error: the `kernel` launcher has no instance for `type` (cuda_check.cpp).
[[noreturn]] void unsupported_type(const char* kernel, ElemType type);

}  // namespace exadnn::cuda
