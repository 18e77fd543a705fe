// CPU LAPACK kernels through LAPACKE (any LAPACK vendor).
#include <lapacke.h>

#include <climits>
#include <vector>

#include "exadnn/backend/kernels.h"
#include "loops.h"

namespace exadnn::cpu {

namespace {

lapack_int lapack_size(int64_t v) {
  EXADNN_CHECK(v <= INT_MAX, "solve", "dimension ", v, " exceeds the LAPACK 32-bit integer range");
  return static_cast<lapack_int>(v);
}

// LU with partial pivoting (gesv).
template <class T>
int64_t solve_kernel(void* a, void* b, int64_t n, int64_t k) {
  const lapack_int ni = lapack_size(n), ki = lapack_size(k);
  std::vector<lapack_int> pivots(static_cast<size_t>(std::max<int64_t>(n, 1)));
  lapack_int info;
  if constexpr (std::is_same_v<T, float>) {
    info = LAPACKE_sgesv(LAPACK_ROW_MAJOR, ni, ki, static_cast<float*>(a), std::max(ni, 1),
                         pivots.data(), static_cast<float*>(b), std::max(ki, 1));
  } else {
    info = LAPACKE_dgesv(LAPACK_ROW_MAJOR, ni, ki, static_cast<double*>(a), std::max(ni, 1),
                         pivots.data(), static_cast<double*>(b), std::max(ki, 1));
  }
  EXADNN_CHECK(info >= 0, "solve", "LAPACKE ?gesv rejected argument ", -info);
  return info;
}

}  // namespace

void register_lapack_kernels(KernelRegistry& r) {
  put<SolveKernel>(r, OpId::solve, DType::f32, &solve_kernel<float>);
  put<SolveKernel>(r, OpId::solve, DType::f64, &solve_kernel<double>);
}

}  // namespace exadnn::cpu
