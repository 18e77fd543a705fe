// GEMM through oneDNN's matmul primitive (internal to the CPU backend): one primitive per problem,
// created on first use and cached, its scratchpad taken from exadnn's MemoryManager.
//
// Used for bf16 operands (half_gemm.cpp), the fused Linear forward (linear_kernels.cpp) and the
// f32 products gemm_routes.h sends to it: with a transposed B and a plain A — a Linear layer's
// forward x·Wᵀ — dnnl_sgemm's kernel is slow on thin problems and the primitive's brgemm kernel
// is not (bench/linear_gemm_bench.cpp, 2 threads, dnnl_sgemm vs primitive: 128×1024→256 176 vs
// 332 GFLOP/s, 256×2048→2048 242 vs 385, 32×1024→1024 65 vs 223).
#pragma once

#include <oneapi/dnnl/dnnl.hpp>

#include "exadnn/backend/kernels.h"

namespace exadnn::cpu {

/// What the primitive adds to each row of C and applies to it after the product (post-ops).
struct MatmulEpilogue {
  const void* bias = nullptr;  // [n] of C's type, added to every row; null: none
  bool relu = false;           // max(0, ·) last
};

/// C = epilogue(alpha·op(A)·op(B) + beta·C) (row-major, GemmArgs's strides) with A and B of type
/// `in` and C of type `out` (f32 or bf16), through a cached matmul primitive. Needs m, n, k > 0.
void onednn_matmul(const GemmArgs& g, dnnl::memory::data_type in, dnnl::memory::data_type out,
                   const MatmulEpilogue& epilogue = {});

}  // namespace exadnn::cpu
