#include "cudnn_context.h"

#include <limits>
#include <unordered_map>

#include "cuda_check.h"
#include "exadnn/core/error.h"

namespace exadnn::cuda {

cudnnHandle_t cudnn_handle(int device) {
  // Never destroyed (see cublas_handle): the driver releases them with the process.
  thread_local std::unordered_map<int, cudnnHandle_t> handles;
  auto it = handles.find(device);
  if (it != handles.end()) return it->second;
  cudnnHandle_t handle = nullptr;
  EXADNN_CUDA_CHECK(cudnnCreate(&handle));
  handles.emplace(device, handle);
  return handle;
}

cudnnDataType_t cudnn_type(DType dtype) {
  switch (dtype) {
    case DType::f32:
      return CUDNN_DATA_FLOAT;
    case DType::f64:
      return CUDNN_DATA_DOUBLE;
    case DType::f16:
      return CUDNN_DATA_HALF;
    case DType::bf16:
      return CUDNN_DATA_BFLOAT16;
    default:
      break;
  }
  throw Error("cudnn", detail::cat("no cuDNN data type for dtype ", dtype_name(dtype)));
}

int to_int(int64_t v, const char* op) {
  EXADNN_CHECK(v >= 0 && v <= std::numeric_limits<int>::max(), op, "size ", v,
               " does not fit cuDNN's 32-bit sizes");
  return static_cast<int>(v);
}

TensorDesc::TensorDesc(DType dtype, int64_t n, int64_t c, int64_t h, int64_t w) {
  EXADNN_CUDA_CHECK(cudnnCreateTensorDescriptor(&desc_));
  try {
    EXADNN_CUDA_CHECK(cudnnSetTensor4dDescriptor(desc_, CUDNN_TENSOR_NCHW, cudnn_type(dtype),
                                                 to_int(n, "cudnn"), to_int(c, "cudnn"),
                                                 to_int(h, "cudnn"), to_int(w, "cudnn")));
  } catch (...) {
    cudnnDestroyTensorDescriptor(desc_);
    throw;
  }
}
TensorDesc::~TensorDesc() {
  cudnnDestroyTensorDescriptor(desc_);
}

FilterDesc::FilterDesc(DType dtype, int64_t o, int64_t c, int64_t kh, int64_t kw) {
  EXADNN_CUDA_CHECK(cudnnCreateFilterDescriptor(&desc_));
  try {
    EXADNN_CUDA_CHECK(cudnnSetFilter4dDescriptor(desc_, cudnn_type(dtype), CUDNN_TENSOR_NCHW,
                                                 to_int(o, "cudnn"), to_int(c, "cudnn"),
                                                 to_int(kh, "cudnn"), to_int(kw, "cudnn")));
  } catch (...) {
    cudnnDestroyFilterDescriptor(desc_);
    throw;
  }
}
FilterDesc::~FilterDesc() {
  cudnnDestroyFilterDescriptor(desc_);
}

std::shared_ptr<Storage> workspace(size_t bytes, int device) {
  if (bytes == 0) return nullptr;
  return Storage::allocate(bytes, Device::cuda(device), MemoryKind::device);
}

}  // namespace exadnn::cuda
