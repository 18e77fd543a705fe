// cuDNN in one place: per-(thread, device) handles, RAII descriptors, the data type of a dtype,
// scaling factors of the right type, and workspaces from the MemoryManager.
//
// exadnn uses cuDNN 9's "legacy" descriptor API (cudnn_cnn / cudnn_ops: cudnnConvolutionForward,
// cudnnPoolingForward, cudnnSoftmaxForward...), still supported in cuDNN 9 though marked
// deprecated in favour of the graph API; every call runs on the legacy default stream.
#pragma once

#include <cudnn.h>

#include <memory>

#include "exadnn/core/storage.h"
#include "exadnn/core/tensor.h"

namespace exadnn::cuda {

/// This thread's cuDNN handle for `device` (which must be current).
cudnnHandle_t cudnn_handle(int device);

/// cuDNN's data type of f32, f64, f16 or bf16; Error for the rest.
cudnnDataType_t cudnn_type(DType dtype);

/// The 1 and 0 scaling factors cuDNN wants for a data type (double for f64, float otherwise).
struct Scaling {
  explicit Scaling(DType dtype) : is_double(dtype == DType::f64) {}
  const void* one() const { return is_double ? static_cast<const void*>(&one_d) : &one_f; }
  const void* zero() const { return is_double ? static_cast<const void*>(&zero_d) : &zero_f; }

 private:
  bool is_double;
  float one_f = 1.0f, zero_f = 0.0f;
  double one_d = 1.0, zero_d = 0.0;
};

/// A 4-d NCHW tensor descriptor.
class TensorDesc {
 public:
  TensorDesc(DType dtype, int64_t n, int64_t c, int64_t h, int64_t w);
  ~TensorDesc();
  TensorDesc(const TensorDesc&) = delete;
  TensorDesc& operator=(const TensorDesc&) = delete;
  cudnnTensorDescriptor_t get() const { return desc_; }

 private:
  cudnnTensorDescriptor_t desc_ = nullptr;
};

/// A 4-d filter descriptor [o, c / groups, kh, kw].
class FilterDesc {
 public:
  FilterDesc(DType dtype, int64_t o, int64_t c, int64_t kh, int64_t kw);
  ~FilterDesc();
  FilterDesc(const FilterDesc&) = delete;
  FilterDesc& operator=(const FilterDesc&) = delete;
  cudnnFilterDescriptor_t get() const { return desc_; }

 private:
  cudnnFilterDescriptor_t desc_ = nullptr;
};

/// `bytes` of device memory for a cuDNN workspace on `device` (null storage for 0 bytes).
std::shared_ptr<Storage> workspace(size_t bytes, int device);

/// Narrows a size to cuDNN's int, naming `op` when it does not fit.
int to_int(int64_t v, const char* op);

}  // namespace exadnn::cuda
