// Status checks and the current-device guard of the CUDA backend.
#include "cuda_check.h"

#include <string>

#include "exadnn/core/dtype.h"
#include "exadnn/core/error.h"
#include "kernel_args.h"

namespace exadnn::cuda {

namespace {

// The name of a cuBLAS status (cublasGetStatusString exists since CUDA 11.4).
const char* cublas_status_name(cublasStatus_t status) {
  return cublasGetStatusString(status);
}

// "cudaMalloc(&ptr, nbytes)" -> "cudaMalloc": errors name the function, not its arguments.
std::string call_name(const char* call) {
  std::string s(call);
  const auto paren = s.find('(');
  return paren == std::string::npos ? s : s.substr(0, paren);
}

}  // namespace

void check(cudaError_t status, const char* call) {
  if (status == cudaSuccess) return;
  throw Error("cuda", detail::cat(call_name(call), " failed: ", cudaGetErrorString(status), " (",
                                  cudaGetErrorName(status), ")"));
}

void check(cublasStatus_t status, const char* call) {
  if (status == CUBLAS_STATUS_SUCCESS) return;
  throw Error("cublas", detail::cat(call_name(call), " failed: ", cublas_status_name(status)));
}

void check(cudnnStatus_t status, const char* call) {
  if (status == CUDNN_STATUS_SUCCESS) return;
  throw Error("cudnn", detail::cat(call_name(call), " failed: ", cudnnGetErrorString(status)));
}

void check_launch(const char* what) {
  const cudaError_t status = cudaGetLastError();
  if (status == cudaSuccess) return;
  throw Error("cuda", detail::cat("launching the ", what, " kernel failed: ",
                                  cudaGetErrorString(status), " (", cudaGetErrorName(status), ")"));
}

void unsupported_type(const char* kernel, ElemType type) {
  throw Error("cuda", detail::cat("the ", kernel, " kernel has no instance for dtype ",
                                  dtype_name(static_cast<DType>(type))));
}

DeviceGuard::DeviceGuard(int device) {
  int current = 0;
  EXADNN_CUDA_CHECK(cudaGetDevice(&current));
  if (current == device) return;
  EXADNN_CUDA_CHECK(cudaSetDevice(device));
  previous_ = current;
}

DeviceGuard::~DeviceGuard() {
  if (previous_ >= 0) cudaSetDevice(previous_);  // cannot fail for a device that was current
}

}  // namespace exadnn::cuda
