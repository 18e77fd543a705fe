// GEMM on CUDA through cuBLAS (cublasGemmEx).
//
// exadnn's GEMM is row-major: C[m, n] = alpha·op(A)·op(B) + beta·C. A row-major matrix with row
// stride ld is, to column-major cuBLAS, its transpose with leading dimension ld, so the call
// computes Cᵀ = op(B)ᵀ·op(A)ᵀ: cuBLAS gets (B, A) swapped, sizes (n, m, k), the same transpose
// flags and the same leading dimensions.
//
// f32 follows GemmArgs::precision:
//   fp32        f32 products and sums (TF32 tensor cores when this thread opted in: tf32_enabled)
//   bf16, fp16  operands rounded to 16 bits (half_pack.cu), products summed in f32
//   split_fp16  A = A_hi + 2^-11·ΔA, three fp16 GEMMs: 2^-11·(A_hi·ΔB + ΔA·B_hi), then A_hi·B_hi
//   split_bf16  A = A0 + 2^-8·A1 + 2^-16·A2, six bf16 GEMMs by groups of one scale, smallest first
// The smaller groups go first and the next GEMM adds onto C (beta = 1), as on the CPU.
// f64 uses f64 throughout; f16 and bf16 sum in f32. Integer GEMMs are not provided.
#include <vector>

#include "cublas_handle.h"
#include "cuda_check.h"
#include "exadnn/backend/cuda/cuda.h"
#include "exadnn/backend/dispatch.h"
#include "exadnn/backend/kernels.h"
#include "exadnn/core/storage.h"
#include "register.h"
#include "tensor_args.h"

namespace exadnn::cuda {

namespace {

// One cublasGemmEx call on row-major operands; `alpha`/`beta` point at the compute type.
struct GemmCall {
  const GemmArgs& g;
  cudaDataType_t ab_type, c_type;
  cublasComputeType_t compute;

  void run(const void* a, int64_t lda, const void* b, int64_t ldb, const void* alpha,
           const void* beta) const {
    const cublasOperation_t op_a = g.trans_a ? CUBLAS_OP_T : CUBLAS_OP_N;
    const cublasOperation_t op_b = g.trans_b ? CUBLAS_OP_T : CUBLAS_OP_N;
    EXADNN_CUDA_CHECK(cublasGemmEx(cublas_handle(device_of_pointer(g.c)), op_b, op_a,
                                   static_cast<int>(g.n), static_cast<int>(g.m),
                                   static_cast<int>(g.k), alpha, b, ab_type, static_cast<int>(ldb),
                                   a, ab_type, static_cast<int>(lda), beta, g.c, c_type,
                                   static_cast<int>(g.ldc), compute, CUBLAS_GEMM_DEFAULT));
  }
};

// Checks the sizes cuBLAS takes as int.
void check_int_sizes(const GemmArgs& g) {
  constexpr int64_t kMax = 2147483647;
  EXADNN_CHECK(
      g.m <= kMax && g.n <= kMax && g.k <= kMax && g.lda <= kMax && g.ldb <= kMax && g.ldc <= kMax,
      "gemm", "cuBLAS takes 32-bit sizes; got m=", g.m, " n=", g.n, " k=", g.k);
}

// Handles the empty cases; returns true when nothing is left to do.
bool trivial(const GemmArgs& g, DType dtype) {
  if (g.m == 0 || g.n == 0) return true;
  check_int_sizes(g);
  if (g.k > 0) return false;
  // C = beta·C (cuBLAS's behaviour for k = 0 is not documented for every path).
  launch_scale_matrix(elem_type(dtype), g.c, g.m, g.n, g.ldc, g.beta);
  return true;
}

// The stored (row-major) sizes of A and B: op(A) is [m, k], op(B) is [k, n].
int64_t rows_a(const GemmArgs& g) {
  return g.trans_a ? g.k : g.m;
}
int64_t cols_a(const GemmArgs& g) {
  return g.trans_a ? g.m : g.k;
}
int64_t rows_b(const GemmArgs& g) {
  return g.trans_b ? g.n : g.k;
}
int64_t cols_b(const GemmArgs& g) {
  return g.trans_b ? g.k : g.n;
}

// An f32 matrix split into `pieces` packed 16-bit matrices on `device` (half_pack.cu).
struct Pieces {
  std::shared_ptr<Storage> storage;
  std::vector<void*> piece;
  int64_t ld = 0;
  Pieces(const float* src, int64_t rows, int64_t cols, int64_t ld_src, DType half, int pieces,
         int device)
      : ld(cols) {
    const size_t bytes = static_cast<size_t>(rows * cols) * 2;
    storage = Storage::allocate(bytes * pieces, Device::cuda(device), MemoryKind::device);
    for (int p = 0; p < pieces; ++p)
      piece.push_back(static_cast<char*>(storage->data()) + p * bytes);
    launch_split_f32(src, rows, cols, ld_src, elem_type(half), pieces, piece.data());
  }
};

void gemm_f32_split(const GemmArgs& g, DType half, int pieces) {
  const int device = device_of_pointer(g.c);
  const Pieces a(static_cast<const float*>(g.a), rows_a(g), cols_a(g), g.lda, half, pieces, device);
  const Pieces b(static_cast<const float*>(g.b), rows_b(g), cols_b(g), g.ldb, half, pieces, device);
  const GemmCall call{g, half == DType::f16 ? CUDA_R_16F : CUDA_R_16BF, CUDA_R_32F,
                      CUBLAS_COMPUTE_32F};
  const float one = 1.0f;
  bool first = true;  // the first GEMM applies beta, the others add onto C
  const float beta = static_cast<float>(g.beta);
  // Adds scale·alpha·A_i·B_j to C.
  auto product = [&](int i, int j, double scale) {
    const float alpha = static_cast<float>(g.alpha * scale);
    call.run(a.piece[i], a.ld, b.piece[j], b.ld, &alpha, first ? &beta : &one);
    first = false;
  };
  if (pieces == 1) {
    product(0, 0, 1.0);
  } else if (pieces == 2) {  // split fp16
    product(0, 1, 1.0 / 2048.0);
    product(1, 0, 1.0 / 2048.0);
    product(0, 0, 1.0);
  } else {  // split bf16
    product(0, 2, 1.0 / 65536.0);
    product(1, 1, 1.0 / 65536.0);
    product(2, 0, 1.0 / 65536.0);
    product(0, 1, 1.0 / 256.0);
    product(1, 0, 1.0 / 256.0);
    product(0, 0, 1.0);
  }
}

void gemm_f32(const GemmArgs& g) {
  if (trivial(g, DType::f32)) return;
  DeviceGuard guard(device_of_pointer(g.c));
  switch (g.precision) {
    case MatmulPrecision::fp32: {
      const float alpha = static_cast<float>(g.alpha), beta = static_cast<float>(g.beta);
      const GemmCall call{g, CUDA_R_32F, CUDA_R_32F,
                          tf32_enabled() ? CUBLAS_COMPUTE_32F_FAST_TF32 : CUBLAS_COMPUTE_32F};
      return call.run(g.a, g.lda, g.b, g.ldb, &alpha, &beta);
    }
    case MatmulPrecision::bf16:
      return gemm_f32_split(g, DType::bf16, 1);
    case MatmulPrecision::fp16:
      return gemm_f32_split(g, DType::f16, 1);
    case MatmulPrecision::split_fp16:
      return gemm_f32_split(g, DType::f16, 2);
    case MatmulPrecision::split_bf16:
      return gemm_f32_split(g, DType::bf16, 3);
  }
}

void gemm_f64(const GemmArgs& g) {
  if (trivial(g, DType::f64)) return;
  DeviceGuard guard(device_of_pointer(g.c));
  const GemmCall call{g, CUDA_R_64F, CUDA_R_64F, CUBLAS_COMPUTE_64F};
  call.run(g.a, g.lda, g.b, g.ldb, &g.alpha, &g.beta);
}

// 16-bit operands and result, f32 sums (alpha and beta in f32, the compute type).
template <DType kType>
void gemm_half(const GemmArgs& g) {
  if (trivial(g, kType)) return;
  DeviceGuard guard(device_of_pointer(g.c));
  const cudaDataType_t type = kType == DType::f16 ? CUDA_R_16F : CUDA_R_16BF;
  const GemmCall call{g, type, type, CUBLAS_COMPUTE_32F};
  const float alpha = static_cast<float>(g.alpha), beta = static_cast<float>(g.beta);
  call.run(g.a, g.lda, g.b, g.ldb, &alpha, &beta);
}

template <class Signature>
void put(KernelRegistry& r, OpId op, DType dtype, Signature* kernel) {
  r.add(op, DeviceKind::cuda, dtype, reinterpret_cast<AnyKernel>(kernel));
}

}  // namespace

void register_gemm_kernels(KernelRegistry& r) {
  put<GemmKernel>(r, OpId::gemm, DType::f32, &gemm_f32);
  put<GemmKernel>(r, OpId::gemm, DType::f64, &gemm_f64);
  put<GemmKernel>(r, OpId::gemm, DType::f16, &gemm_half<DType::f16>);
  put<GemmKernel>(r, OpId::gemm, DType::bf16, &gemm_half<DType::bf16>);
}

}  // namespace exadnn::cuda
