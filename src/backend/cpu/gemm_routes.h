// The two ways oneDNN runs an f32 GEMM, and which one a product takes (internal to the CPU
// backend). dnnl_sgemm and the matmul primitive (onednn_matmul.h) trade places shape by shape
// (bench/linear_gemm_bench.cpp, 2 threads, µs, dnnl_sgemm / primitive, no transposes:
// 256×2048×2048 7 370 / 6 869, 128×512×256 107 / 124, 32×1024×1024 227 / 349), so:
//   - a transposed B with a plain A (a Linear layer's forward x·Wᵀ) takes the primitive, whose
//     brgemm kernel is far faster there (256×2048→2048: 242 vs 385 GFLOP/s);
//   - any other product that overwrites C (β = 0) and is large enough for the difference to
//     matter is measured on first use and the faster route remembered in the wisdom file
//     (route_tuning.h: both runs may overwrite the call's own C; the routes round differently, so
//     a resumed run must take the same one); with EXADNN_GEMM=onednn it takes dnnl_sgemm;
//   - the rest take dnnl_sgemm.
#pragma once

#include <cstdint>
#include <string>

#include "exadnn/backend/kernels.h"

namespace exadnn::cpu {

enum class GemmRoute : uint8_t {
  dnnl_sgemm,     ///< oneDNN's BLAS-like sgemm
  onednn_matmul,  ///< oneDNN's matmul primitive, cached per problem
};

/// The route for this f32 product, measuring it first where the rule above says (a product with
/// m, n or k = 0 takes dnnl_sgemm: the primitive needs them > 0).
GemmRoute f32_gemm_route(const GemmArgs& g);
/// Computes C = alpha·op(A)·op(B) + beta·C in f32 by `route`.
void run_f32_gemm(const GemmArgs& g, GemmRoute route);

/// The wisdom file's key of a product (machine, threads, transposes, sizes, leading dimensions).
std::string gemm_wisdom_key(const GemmArgs& g);
/// Products under this many floating-point operations (2·m·n·k) are not measured: the two routes
/// differ there by microseconds.
inline constexpr double kMeasuredGemmMinFlops = 8e6;

}  // namespace exadnn::cpu
