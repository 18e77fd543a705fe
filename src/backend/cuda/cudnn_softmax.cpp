// Softmax and log-softmax forward and backward through cuDNN: x viewed as [outer, axis, inner]
// is the NCHW tensor [outer, axis, inner, 1] with the softmax over channels (stable: cuDNN's
// ACCURATE algorithm subtracts the maximum).
#include "cudnn_kernels.h"

#include "cuda_check.h"
#include "cudnn_context.h"
#include "tensor_args.h"

namespace exadnn::cuda {

namespace {

cudnnSoftmaxAlgorithm_t algorithm(const SoftmaxGeometry& g) {
  return g.log ? CUDNN_SOFTMAX_LOG : CUDNN_SOFTMAX_ACCURATE;
}

void softmax_forward(const SoftmaxGeometry& g, const Tensor& out, const Tensor& x) {
  const int device = cuda_device_of(out, "softmax");
  DeviceGuard guard(device);
  const TensorDesc d(x.dtype(), g.outer, g.axis, g.inner, 1);
  const Scaling s(x.dtype());
  EXADNN_CUDA_CHECK(cudnnSoftmaxForward(cudnn_handle(device), algorithm(g),
                                        CUDNN_SOFTMAX_MODE_CHANNEL, s.one(), d.get(), x.data_ptr(),
                                        s.zero(), d.get(), out.data_ptr()));
}

void softmax_backward(const SoftmaxGeometry& g, const Tensor& grad_x, const Tensor& grad_out,
                      const Tensor& out) {
  const int device = cuda_device_of(grad_x, "softmax_backward");
  DeviceGuard guard(device);
  const TensorDesc d(out.dtype(), g.outer, g.axis, g.inner, 1);
  const Scaling s(out.dtype());
  EXADNN_CUDA_CHECK(cudnnSoftmaxBackward(
      cudnn_handle(device), algorithm(g), CUDNN_SOFTMAX_MODE_CHANNEL, s.one(), d.get(),
      out.data_ptr(), d.get(), grad_out.data_ptr(), s.zero(), d.get(), grad_x.data_ptr()));
}

}  // namespace

void register_softmax_kernels(KernelRegistry& r) {
  for (DType d : {DType::f32, DType::f64}) {
    r.add(OpId::softmax_forward, DeviceKind::cuda, d,
          reinterpret_cast<AnyKernel>(static_cast<SoftmaxForwardKernel*>(&softmax_forward)));
    r.add(OpId::softmax_backward, DeviceKind::cuda, d,
          reinterpret_cast<AnyKernel>(static_cast<SoftmaxBackwardKernel*>(&softmax_backward)));
  }
}

}  // namespace exadnn::cuda
