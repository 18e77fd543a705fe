// Status checks for the CUDA libraries: every call's status becomes an exadnn::Error naming the
// call, and the device of a tensor becomes the current device for the duration of a kernel.
#pragma once

#include <cublas_v2.h>
#include <cuda_runtime_api.h>
#include <cudnn.h>

namespace exadnn::cuda {

/// Throws exadnn::Error("cuda", "<call> failed: <cudaGetErrorString>") unless status is success.
void check(cudaError_t status, const char* call);
/// The same for a cuBLAS status ("<call> failed: CUBLAS_STATUS_...").
void check(cublasStatus_t status, const char* call);
/// The same for a cuDNN status ("<call> failed: <cudnnGetErrorString>").
void check(cudnnStatus_t status, const char* call);

/// Makes `device` the calling thread's current device for the guard's lifetime.
class DeviceGuard {
 public:
  explicit DeviceGuard(int device);
  ~DeviceGuard();
  DeviceGuard(const DeviceGuard&) = delete;
  DeviceGuard& operator=(const DeviceGuard&) = delete;

 private:
  int previous_ = -1;  // -1: nothing to restore
};

}  // namespace exadnn::cuda

/// Checks the status of a CUDA, cuBLAS or cuDNN call, naming the call in the error.
#define EXADNN_CUDA_CHECK(call) ::exadnn::cuda::check((call), #call)
