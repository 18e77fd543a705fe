// Batch normalisation on CUDA (f32, f64): the nn_kernels.h signatures over batch_norm.cu.
#include "cudnn_kernels.h"

#include "cuda_check.h"
#include "tensor_args.h"

namespace exadnn::cuda {

namespace {

const void* data_or_null(const Tensor& t) {
  return t.defined() ? t.data_ptr() : nullptr;
}
void* mutable_data_or_null(const Tensor& t) {
  return t.defined() ? t.data_ptr() : nullptr;
}

void batch_norm_forward(const BatchNormGeometry& g, const Tensor& y, const Tensor& x,
                        const Tensor& scale, const Tensor& shift, const Tensor& mean,
                        const Tensor& var) {
  DeviceGuard guard(cuda_device_of(y, "batch_norm"));
  const BatchNormShape s{g.n, g.c, g.spatial, g.eps};
  launch_batch_norm_forward(elem_type(x.dtype()), s, g.training, x.data_ptr(), data_or_null(scale),
                            data_or_null(shift), mean.data_ptr(), var.data_ptr(), y.data_ptr());
}

void batch_norm_backward(const BatchNormGeometry& g, const Tensor& grad_x, const Tensor& grad_scale,
                         const Tensor& grad_shift, const Tensor& grad_y, const Tensor& x,
                         const Tensor& scale, const Tensor& mean, const Tensor& var) {
  DeviceGuard guard(cuda_device_of(grad_x, "batch_norm_backward"));
  const BatchNormShape s{g.n, g.c, g.spatial, g.eps};
  launch_batch_norm_backward(elem_type(x.dtype()), s, g.training, grad_y.data_ptr(), x.data_ptr(),
                             data_or_null(scale), mean.data_ptr(), var.data_ptr(),
                             grad_x.data_ptr(), mutable_data_or_null(grad_scale),
                             mutable_data_or_null(grad_shift));
}

}  // namespace

void register_batch_norm_kernels(KernelRegistry& r) {
  for (DType d : {DType::f32, DType::f64}) {
    r.add(OpId::batch_norm_forward, DeviceKind::cuda, d,
          reinterpret_cast<AnyKernel>(static_cast<BatchNormForwardKernel*>(&batch_norm_forward)));
    r.add(OpId::batch_norm_backward, DeviceKind::cuda, d,
          reinterpret_cast<AnyKernel>(static_cast<BatchNormBackwardKernel*>(&batch_norm_backward)));
  }
}

}  // namespace exadnn::cuda
