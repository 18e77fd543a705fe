// cuBLAS handles: one per (thread, device), created on first use, on the legacy default stream.
#pragma once

#include <cublas_v2.h>

namespace exadnn::cuda {

/// This thread's cuBLAS handle for `device` (which must be current).
cublasHandle_t cublas_handle(int device);

/// The device owning the memory at `ptr` (device or managed memory).
int device_of_pointer(const void* ptr);

}  // namespace exadnn::cuda
