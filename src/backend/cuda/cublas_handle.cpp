#include "cublas_handle.h"

#include <unordered_map>

#include "cuda_check.h"

namespace exadnn::cuda {

cublasHandle_t cublas_handle(int device) {
  // Never destroyed: destroying handles in thread-exit or static destructors may run after the
  // CUDA runtime has shut down. The driver releases them with the process.
  thread_local std::unordered_map<int, cublasHandle_t> handles;
  auto it = handles.find(device);
  if (it != handles.end()) return it->second;
  cublasHandle_t handle = nullptr;
  EXADNN_CUDA_CHECK(cublasCreate(&handle));
  handles.emplace(device, handle);
  return handle;
}

int device_of_pointer(const void* ptr) {
  cudaPointerAttributes attr{};
  EXADNN_CUDA_CHECK(cudaPointerGetAttributes(&attr, ptr));
  return attr.device;
}

}  // namespace exadnn::cuda
