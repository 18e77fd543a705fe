// 2-D pooling forward and backward through cuDNN (legacy descriptor API, cudnn_ops).
//
// cuDNN's max-pooling backward reads the forward's input and output, so the training forward
// returns a workspace holding copies of both: [x.numel() + out.numel()] elements of x's dtype,
// x first. Adaptive average pooling is average pooling when the output divides the input
// (window = stride = h / oh); other adaptive shapes are refused with an error.
#include "cudnn_kernels.h"

#include "cuda_check.h"
#include "cudnn_context.h"
#include "exadnn/core/storage.h"
#include "tensor_args.h"

namespace exadnn::cuda {

namespace {

constexpr cudaStream_t kStream = nullptr;  // the legacy default stream

class PoolDesc {
 public:
  explicit PoolDesc(const Pool2dGeometry& g) {
    int64_t kh = g.kh, kw = g.kw, sh = g.stride_h, sw = g.stride_w, ph = g.pad_h, pw = g.pad_w;
    cudnnPoolingMode_t mode = CUDNN_POOLING_MAX_DETERMINISTIC;
    switch (g.kind) {
      case PoolKind::max:
        break;
      case PoolKind::avg_include_pad:
        mode = CUDNN_POOLING_AVERAGE_COUNT_INCLUDE_PADDING;
        break;
      case PoolKind::avg_exclude_pad:
        mode = CUDNN_POOLING_AVERAGE_COUNT_EXCLUDE_PADDING;
        break;
      case PoolKind::adaptive_avg:
        EXADNN_CHECK(g.oh > 0 && g.ow > 0 && g.h % g.oh == 0 && g.w % g.ow == 0,
                     "adaptive_avg_pool2d", "on CUDA the output size [", g.oh, ", ", g.ow,
                     "] must divide the input size [", g.h, ", ", g.w, "]");
        kh = sh = g.h / g.oh;
        kw = sw = g.w / g.ow;
        ph = pw = 0;
        mode = CUDNN_POOLING_AVERAGE_COUNT_INCLUDE_PADDING;
        break;
    }
    EXADNN_CUDA_CHECK(cudnnCreatePoolingDescriptor(&desc_));
    try {
      EXADNN_CUDA_CHECK(cudnnSetPooling2dDescriptor(
          desc_, mode, CUDNN_PROPAGATE_NAN, to_int(kh, "pool2d"), to_int(kw, "pool2d"),
          to_int(ph, "pool2d"), to_int(pw, "pool2d"), to_int(sh, "pool2d"), to_int(sw, "pool2d")));
    } catch (...) {
      cudnnDestroyPoolingDescriptor(desc_);
      throw;
    }
  }
  ~PoolDesc() { cudnnDestroyPoolingDescriptor(desc_); }
  PoolDesc(const PoolDesc&) = delete;
  PoolDesc& operator=(const PoolDesc&) = delete;
  cudnnPoolingDescriptor_t get() const { return desc_; }

 private:
  cudnnPoolingDescriptor_t desc_ = nullptr;
};

Tensor pool_forward(const Pool2dGeometry& g, const Tensor& out, const Tensor& x, bool training) {
  const int device = cuda_device_of(out, "pool2d");
  DeviceGuard guard(device);
  const PoolDesc pool(g);
  const TensorDesc xd(x.dtype(), g.n, g.c, g.h, g.w), yd(x.dtype(), g.n, g.c, g.oh, g.ow);
  const Scaling s(x.dtype());
  EXADNN_CUDA_CHECK(cudnnPoolingForward(cudnn_handle(device), pool.get(), s.one(), xd.get(),
                                        x.data_ptr(), s.zero(), yd.get(), out.data_ptr()));
  if (!training || g.kind != PoolKind::max) return Tensor();
  // Workspace: x then out, for the backward pass.
  const size_t x_bytes = x.nbytes(), y_bytes = out.nbytes();
  const auto storage =
      Storage::allocate(x_bytes + y_bytes, Device::cuda(device), MemoryKind::device);
  char* base = static_cast<char*>(storage->data());
  EXADNN_CUDA_CHECK(
      cudaMemcpyAsync(base, x.data_ptr(), x_bytes, cudaMemcpyDeviceToDevice, kStream));
  EXADNN_CUDA_CHECK(
      cudaMemcpyAsync(base + x_bytes, out.data_ptr(), y_bytes, cudaMemcpyDeviceToDevice, kStream));
  const int64_t total = x.numel() + out.numel();
  return make_view(storage, Shape{total}, Strides{1}, 0, x.dtype());
}

void pool_backward(const Pool2dGeometry& g, const Tensor& grad_x, const Tensor& grad_out,
                   const Tensor& workspace) {
  const int device = cuda_device_of(grad_x, "pool2d_backward");
  DeviceGuard guard(device);
  const PoolDesc pool(g);
  const TensorDesc xd(grad_x.dtype(), g.n, g.c, g.h, g.w), yd(grad_x.dtype(), g.n, g.c, g.oh, g.ow);
  const Scaling s(grad_x.dtype());
  // Average pooling reads neither x nor y; the gradients stand in as valid buffers of their shape.
  const void* x = grad_x.data_ptr();
  const void* y = grad_out.data_ptr();
  if (g.kind == PoolKind::max) {
    EXADNN_CHECK(workspace.defined() && workspace.dtype() == grad_x.dtype() &&
                     workspace.numel() == grad_x.numel() + grad_out.numel(),
                 "max_pool2d", "backward needs the CUDA forward's training workspace");
    x = workspace.data_ptr();
    y = static_cast<const char*>(workspace.data_ptr()) + grad_x.nbytes();
  }
  EXADNN_CUDA_CHECK(cudnnPoolingBackward(cudnn_handle(device), pool.get(), s.one(), yd.get(), y,
                                         yd.get(), grad_out.data_ptr(), xd.get(), x, s.zero(),
                                         xd.get(), grad_x.data_ptr()));
}

}  // namespace

void register_pool_kernels(KernelRegistry& r) {
  // f16 and bf16: the pooling after a 16-bit convolution under autocast.
  for (DType d : {DType::f32, DType::f64, DType::f16, DType::bf16}) {
    r.add(OpId::pool2d_forward, DeviceKind::cuda, d,
          reinterpret_cast<AnyKernel>(static_cast<Pool2dForwardKernel*>(&pool_forward)));
    r.add(OpId::pool2d_backward, DeviceKind::cuda, d,
          reinterpret_cast<AnyKernel>(static_cast<Pool2dBackwardKernel*>(&pool_backward)));
  }
}

}  // namespace exadnn::cuda
