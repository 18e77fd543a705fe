// Signatures of the kernels a backend provides (see src/backend/README.md for the contract).
// Every output tensor is allocated by the op before the call, contiguous, on the right device.
// Inputs may be strided; inputs of elementwise kernels are already broadcast to the output shape
// (stride 0 on broadcast axes) and converted to the dtype the kernel is registered for.
#pragma once

#include <cstdint>

#include "exadnn/backend/precision_policy.h"
#include "exadnn/core/tensor.h"

namespace exadnn {

/// Scalar parameters of unary kernels: clamp uses (a, b) as (lo, hi), pow_scalar uses a.
struct UnaryParams {
  double a = 0.0;
  double b = 0.0;
};

/// out = src, elementwise, both of the registered dtype; out may be strided too.
using CopyKernel = void(const Tensor& out, const Tensor& src);
/// out (any dtype) = convert(src); registered for src's dtype.
using CastKernel = void(const Tensor& out, const Tensor& src);
/// Every element of out = value.
using FillKernel = void(const Tensor& out, double value);
/// out = f(in), same dtype and shape.
using UnaryKernel = void(const Tensor& out, const Tensor& in, const UnaryParams& params);
/// out = f(a, b), same dtype and shape.
using BinaryKernel = void(const Tensor& out, const Tensor& a, const Tensor& b);
/// out (bool) = a ⋄ b; a, b of the registered dtype.
using CompareKernel = void(const Tensor& out, const Tensor& a, const Tensor& b);
/// out = cond ? a : b; cond is bool, a and b of the registered dtype.
using WhereKernel = void(const Tensor& out, const Tensor& cond, const Tensor& a, const Tensor& b);
/// out[kept] = reduce(in[kept, reduced]); `in` is permuted so its last `reduced_dims` axes are
/// reduced, and out is contiguous with in's leading (kept) shape.
using ReduceKernel = void(const Tensor& out, const Tensor& in, int64_t reduced_dims);
/// Index (i64) of the max/min over the last axis of `in`; out has in's leading shape.
using ArgReduceKernel = void(const Tensor& out, const Tensor& in);

/// Row-major C[m, n] = alpha * op(A)[m, k] · op(B)[k, n] + beta * C, over raw pointers.
struct GemmArgs {
  bool trans_a = false;
  bool trans_b = false;
  int64_t m = 0, n = 0, k = 0;
  double alpha = 1.0;
  const void* a = nullptr;
  int64_t lda = 0;
  const void* b = nullptr;
  int64_t ldb = 0;
  double beta = 0.0;
  void* c = nullptr;
  int64_t ldc = 0;
  /// How f32 operands are multiplied (16-bit, f64 and integer GEMMs ignore it).
  MatmulPrecision precision = MatmulPrecision::fp32;
};
using GemmKernel = void(const GemmArgs& args);

/// Solves A·X = B in place for one system: `a` is a dense row-major [n, n] matrix (overwritten by
/// its LU factors), `b` a dense row-major [n, k] matrix overwritten by X. Returns 0, or i > 0 when
/// U[i-1, i-1] is exactly zero (A is singular).
using SolveKernel = int64_t(void* a, void* b, int64_t n, int64_t k);

}  // namespace exadnn
