#include "tensor_utils.h"

#include "exadnn/backend/dispatch.h"
#include "exadnn/backend/kernels.h"

namespace exadnn::autograd::detail {

Tensor new_tensor(const Shape& shape, DType dtype, Device device) {
  const MemoryKind kind = device.is_cpu() ? MemoryKind::host : MemoryKind::device;
  auto storage =
      Storage::allocate(static_cast<size_t>(shape.numel()) * dtype_size(dtype), device, kind);
  return make_view(storage, shape, contiguous_strides(shape), 0, dtype);
}

Tensor filled(const Shape& shape, DType dtype, Device device, double value) {
  Tensor t = new_tensor(shape, dtype, device);
  lookup<FillKernel>(OpId::fill, device.kind, dtype)(t, value);
  return t;
}

Tensor dense_copy(const Tensor& t, DType dtype) {
  Tensor out = new_tensor(t.shape(), dtype, t.device());
  if (dtype == t.dtype()) {  // a plain copy: the copy kernel has the vectorised paths
    lookup<CopyKernel>(OpId::copy, t.device().kind, t.dtype())(out, t);
  } else {
    lookup<CastKernel>(OpId::cast, t.device().kind, t.dtype())(out, t);
  }
  return out;
}

Tensor sum_of(const Tensor& a, const Tensor& b) {
  Tensor out = new_tensor(a.shape(), a.dtype(), a.device());
  lookup<BinaryKernel>(OpId::add, a.device().kind, a.dtype())(out, a, b);
  return out;
}

}  // namespace exadnn::autograd::detail
