// The CPU backend's entry point: fills the CPU row of the dispatch table.
#include "exadnn/backend/dispatch.h"
#include "gemm_provider.h"

namespace exadnn::cpu {

void register_copy_kernels(KernelRegistry& r);
void register_unary_kernels(KernelRegistry& r);
void register_binary_kernels(KernelRegistry& r);
void register_reduce_kernels(KernelRegistry& r);
void register_gemm_kernels(KernelRegistry& r);
void register_lapack_kernels(KernelRegistry& r);
void register_nn_kernels(KernelRegistry& r);
void register_linear_kernels(KernelRegistry& r);
void register_optim_kernels(KernelRegistry& r);

void register_kernels(KernelRegistry& r) {
  if (split_blas_over_openmp()) set_blas_threads(1);
  register_copy_kernels(r);
  register_unary_kernels(r);
  register_binary_kernels(r);
  register_reduce_kernels(r);
  register_gemm_kernels(r);
  register_lapack_kernels(r);
  register_nn_kernels(r);
  register_linear_kernels(r);
  register_optim_kernels(r);
}

}  // namespace exadnn::cpu
