// CPU GEMM kernels: f32 through oneDNN (dnnl_sgemm or its matmul primitive, per product:
// gemm_routes.h) or CBLAS (or at the precision GemmArgs asks for, in
// half_gemm.cpp), f64 through CBLAS, 16-bit floats with f32 sums (half_gemm.cpp), integers by a
// blocked loop.
#include <cblas.h>
#include <omp.h>

#include <climits>
#include <type_traits>
#include <vector>

#include "exadnn/backend/kernels.h"
#include "gemm_impl.h"
#include "gemm_provider.h"
#include "gemm_routes.h"
#include "loops.h"

namespace exadnn::cpu {

namespace {

int blas_int(int64_t v, const char* what) {
  EXADNN_CHECK(v <= INT_MAX, "gemm", what, " = ", v, " exceeds the BLAS 32-bit integer range");
  return static_cast<int>(v);
}

// Runs a BLAS GEMM. When exadnn threads BLAS itself (split_blas_over_openmp), the call is split
// into blocks of C rows (or columns, for short wide products) over exadnn's OpenMP threads.
template <class Call>
void blas_gemm(const GemmArgs& g, size_t esize, Call call) {
  const int threads = omp_get_max_threads();
  const double flops =
      2.0 * static_cast<double>(g.m) * static_cast<double>(g.n) * static_cast<double>(g.k);
  if (!split_blas_over_openmp() || threads == 1 || flops < 4e6) return call(g);
  const bool by_rows = g.m >= g.n;
  const int64_t extent = by_rows ? g.m : g.n;
  const int64_t block = (extent + threads - 1) / threads;
#pragma omp parallel for num_threads(threads) schedule(static)
  for (int t = 0; t < threads; ++t) {
    const int64_t begin = t * block, count = std::min(block, extent - begin);
    if (count <= 0) continue;
    GemmArgs part = g;
    const auto* a = static_cast<const char*>(g.a);
    const auto* b = static_cast<const char*>(g.b);
    auto* c = static_cast<char*>(g.c);
    if (by_rows) {  // rows [begin, begin + count) of C and of op(A)
      part.m = count;
      part.a = a + (g.trans_a ? begin : begin * g.lda) * static_cast<int64_t>(esize);
      part.c = c + begin * g.ldc * static_cast<int64_t>(esize);
    } else {  // columns of C and of op(B)
      part.n = count;
      part.b = b + (g.trans_b ? begin * g.ldb : begin) * static_cast<int64_t>(esize);
      part.c = c + begin * static_cast<int64_t>(esize);
    }
    call(part);
  }
}

void dgemm(const GemmArgs& g) {
  blas_gemm(g, sizeof(double), [](const GemmArgs& p) {
    cblas_dgemm(CblasRowMajor, p.trans_a ? CblasTrans : CblasNoTrans,
                p.trans_b ? CblasTrans : CblasNoTrans, blas_int(p.m, "m"), blas_int(p.n, "n"),
                blas_int(p.k, "k"), p.alpha, static_cast<const double*>(p.a),
                blas_int(p.lda, "lda"), static_cast<const double*>(p.b), blas_int(p.ldb, "ldb"),
                p.beta, static_cast<double*>(p.c), blas_int(p.ldc, "ldc"));
  });
}

// Integer GEMM: i-k-j loop order so the inner loop streams rows of B and C.
template <class T>
void gemm_integer(const GemmArgs& g) {
  const T* a = static_cast<const T*>(g.a);
  const T* b = static_cast<const T*>(g.b);
  T* c = static_cast<T*>(g.c);
  const T alpha = static_cast<T>(g.alpha), beta = static_cast<T>(g.beta);
#pragma omp parallel for if (g.m * g.n * g.k >= kParallelGrain)
  for (int64_t i = 0; i < g.m; ++i) {
    T* crow = c + i * g.ldc;
    for (int64_t j = 0; j < g.n; ++j)
      crow[j] = beta == T(0) ? T(0) : static_cast<T>(beta * crow[j]);
    for (int64_t p = 0; p < g.k; ++p) {
      const T av = static_cast<T>(alpha * (g.trans_a ? a[p * g.lda + i] : a[i * g.lda + p]));
      for (int64_t j = 0; j < g.n; ++j)
        crow[j] = static_cast<T>(crow[j] + av * (g.trans_b ? b[j * g.ldb + p] : b[p * g.ldb + j]));
    }
  }
}

}  // namespace

void sgemm(const GemmArgs& g) {
  if (gemm_provider() == GemmProvider::onednn) return run_f32_gemm(g, f32_gemm_route(g));
  blas_gemm(g, sizeof(float), [](const GemmArgs& p) {
    cblas_sgemm(CblasRowMajor, p.trans_a ? CblasTrans : CblasNoTrans,
                p.trans_b ? CblasTrans : CblasNoTrans, blas_int(p.m, "m"), blas_int(p.n, "n"),
                blas_int(p.k, "k"), static_cast<float>(p.alpha), static_cast<const float*>(p.a),
                blas_int(p.lda, "lda"), static_cast<const float*>(p.b), blas_int(p.ldb, "ldb"),
                static_cast<float>(p.beta), static_cast<float*>(p.c), blas_int(p.ldc, "ldc"));
  });
}

void register_gemm_kernels(KernelRegistry& r) {
  put<GemmKernel>(r, OpId::gemm, DType::f32, &sgemm_with_precision);
  put<GemmKernel>(r, OpId::gemm, DType::f64, &dgemm);
  put<GemmKernel>(r, OpId::gemm, DType::f16, &gemm_f16);
  put<GemmKernel>(r, OpId::gemm, DType::bf16, &gemm_bf16);
  put<GemmKernel>(r, OpId::gemm, DType::i32, &gemm_integer<int32_t>);
  put<GemmKernel>(r, OpId::gemm, DType::i64, &gemm_integer<int64_t>);
}

}  // namespace exadnn::cpu
