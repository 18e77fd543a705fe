// Matrix products.
#pragma once

#include "exadnn/backend/precision_policy.h"
#include "exadnn/core/tensor.h"

namespace exadnn {

/// NumPy matmul: 1-D·1-D dot, 2-D·2-D product, batched products with broadcast batch dims
/// ([..., m, k]·[..., k, n] -> [..., m, n]). Operands must share a dtype. Runs on the fastest GEMM
/// the machine has (see runtime_info()); transposed views are passed to GEMM without copying.
/// f32 products are computed at this thread's matmul_precision() (fp32 unless a
/// MatmulPrecisionGuard says otherwise).
Tensor matmul(const Tensor& a, const Tensor& b);
/// matmul whose f32 products (forward and backward) are computed at `precision` (fp32, bf16,
/// fp16, split_fp16, split_bf16; see docs/precision.md). Other dtypes ignore it.
Tensor matmul(const Tensor& a, const Tensor& b, MatmulPrecision precision);

/// Fully connected layer: x [..., in] · weightᵀ [in, out] + bias [out] -> [..., out]. One node
/// whose backward writes the weight gradient directly in weight's [out, in] layout (gᵀ·x) and
/// the bias gradient as a column sum.
Tensor linear(const Tensor& x, const Tensor& weight, const Tensor& bias = Tensor());
/// relu(linear(x, weight, bias)) as one node: on the CPU in f32 the bias and the ReLU are applied
/// inside the GEMM (oneDNN post-ops) instead of two more passes over the output. nn::Sequential
/// uses it for a Linear followed by a ReLU.
Tensor linear_relu(const Tensor& x, const Tensor& weight, const Tensor& bias = Tensor());

/// X with A·X = B, by LU with partial pivoting (LAPACK gesv). a: [..., n, n]; b: [..., n, k] or
/// [n] (a vector right-hand side); batch dims broadcast. f32 or f64. A singular matrix is an
/// Error naming the batch entry and the zero pivot.
Tensor solve(const Tensor& a, const Tensor& b);

}  // namespace exadnn
