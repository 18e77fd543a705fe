// 2-D convolution forward and backward through cuDNN (legacy descriptor API, cudnn_cnn).
// Algorithms are measured once per problem and remembered (cudnn_conv_algorithm.h), the fastest
// deterministic one first.
// f32 convolutions use FMA math (true f32) unless this thread opted in to TF32
// (exadnn::cuda::tf32_enabled), which lets cuDNN use tensor cores.
#include "cudnn_kernels.h"

#include <vector>

#include "cuda_check.h"
#include "cudnn_context.h"
#include "cudnn_conv_algorithm.h"
#include "exadnn/backend/cuda/cuda.h"
#include "tensor_args.h"

namespace exadnn::cuda {

namespace {

// Descriptors of one convolution problem.
struct ConvProblem {
  TensorDesc x, y;
  FilterDesc w;
  cudnnConvolutionDescriptor_t conv = nullptr;

  ConvProblem(const Conv2dGeometry& g, DType dtype)
      : x(dtype, g.n, g.c, g.h, g.w),
        y(dtype, g.n, g.o, g.oh, g.ow),
        w(dtype, g.o, g.c / g.groups, g.kh, g.kw) {
    EXADNN_CUDA_CHECK(cudnnCreateConvolutionDescriptor(&conv));
    try {
      // Sums in f64 for f64, in f32 otherwise (f16 and bf16 too).
      EXADNN_CUDA_CHECK(cudnnSetConvolution2dDescriptor(
          conv, to_int(g.pad_h, "conv2d"), to_int(g.pad_w, "conv2d"), to_int(g.stride_h, "conv2d"),
          to_int(g.stride_w, "conv2d"), to_int(g.dilation_h, "conv2d"),
          to_int(g.dilation_w, "conv2d"), CUDNN_CROSS_CORRELATION,
          dtype == DType::f64 ? CUDNN_DATA_DOUBLE : CUDNN_DATA_FLOAT));
      EXADNN_CUDA_CHECK(cudnnSetConvolutionGroupCount(conv, to_int(g.groups, "conv2d")));
      EXADNN_CUDA_CHECK(cudnnSetConvolutionMathType(
          conv, dtype == DType::f32 && !tf32_enabled() ? CUDNN_FMA_MATH : CUDNN_DEFAULT_MATH));
    } catch (...) {
      cudnnDestroyConvolutionDescriptor(conv);
      throw;
    }
  }
  ~ConvProblem() { cudnnDestroyConvolutionDescriptor(conv); }
  ConvProblem(const ConvProblem&) = delete;
  ConvProblem& operator=(const ConvProblem&) = delete;
};

// The fastest usable algorithm of a measured list (cuDNN sorts it by time), preferring
// deterministic ones, with the workspace it needs.
template <class Perf>
ConvAlgorithm pick(const std::vector<Perf>& perfs, int returned, const char* op) {
  for (int pass = 0; pass < 2; ++pass)
    for (int i = 0; i < returned; ++i)
      if (perfs[i].status == CUDNN_STATUS_SUCCESS &&
          (pass == 1 || perfs[i].determinism == CUDNN_DETERMINISTIC))
        return {static_cast<int>(perfs[i].algo), perfs[i].memory};
  throw Error(op, "cuDNN offers no algorithm for this convolution");
}

// Runs cuDNN's measurement `find(perfs, &returned, workspace, bytes)` with a bounded workspace
// and picks from its list. Where the workspace cannot be had (a full device, or a MemoryManager
// limit below it), only the algorithms that need none are measured.
template <class Perf, class Find>
ConvAlgorithm measure(int count, int device, const char* op, Find find) {
  std::vector<Perf> perfs(count);
  int returned = 0;
  std::shared_ptr<Storage> ws;
  try {
    ws = workspace(kConvFindWorkspaceBytes, device);
  } catch (const Error&) {
    ws = nullptr;
  }
  EXADNN_CUDA_CHECK(
      find(perfs.data(), &returned, ws ? ws->data() : nullptr, ws ? kConvFindWorkspaceBytes : 0));
  return pick(perfs, returned, op);
}

// grad_bias [o] = the sum of grad_out [n, o, oh, ow] over n, oh and ow. cuDNN's bias gradient
// takes no bf16 (CUDNN_STATUS_NOT_SUPPORTED on the first GPU run): 16-bit sums go through the
// backend's own reduction, which accumulates in double.
void sum_per_channel(const Tensor& grad_bias, const Tensor& grad_out, cudnnHandle_t h) {
  const DType dtype = grad_out.dtype();
  if (dtype == DType::f32 || dtype == DType::f64) {
    const Scaling s(dtype);
    const TensorDesc y(dtype, grad_out.shape()[0], grad_out.shape()[1], grad_out.shape()[2],
                       grad_out.shape()[3]);
    const TensorDesc b(dtype, 1, grad_out.shape()[1], 1, 1);
    EXADNN_CUDA_CHECK(cudnnConvolutionBackwardBias(h, s.one(), y.get(), grad_out.data_ptr(),
                                                   s.zero(), b.get(), grad_bias.data_ptr()));
    return;
  }
  const Tensor by_channel = grad_out.permute({1, 0, 2, 3});  // [o, n, oh, ow], a view
  Operand rows, cols;
  const IterShape row_shape = make_iter_axes(by_channel, 0, 1, rows);
  const IterShape col_shape = make_iter_axes(by_channel, 1, 4, cols);
  launch_reduce(ReduceOp::sum, elem_type(dtype), row_shape, rows, col_shape, cols,
                grad_bias.data_ptr());
}

void conv_forward(const Conv2dGeometry& g, const Tensor& out, const Tensor& x, const Tensor& weight,
                  const Tensor& bias) {
  const int device = cuda_device_of(out, "conv2d");
  DeviceGuard guard(device);
  cudnnHandle_t h = cudnn_handle(device);
  const ConvProblem p(g, x.dtype());
  const Scaling s(x.dtype());
  const ConvAlgorithm a =
      cached_conv_algorithm(device, ConvDirection::forward, g, x.dtype(), tf32_enabled(), [&] {
        return measure<cudnnConvolutionFwdAlgoPerf_t>(
            CUDNN_CONVOLUTION_FWD_ALGO_COUNT, device, "conv2d",
            [&](auto* perfs, int* returned, void* ws, size_t bytes) {
              return cudnnFindConvolutionForwardAlgorithmEx(
                  h, p.x.get(), x.data_ptr(), p.w.get(), weight.data_ptr(), p.conv, p.y.get(),
                  out.data_ptr(), CUDNN_CONVOLUTION_FWD_ALGO_COUNT, returned, perfs, ws, bytes);
            });
      });
  const auto algo = static_cast<cudnnConvolutionFwdAlgo_t>(a.algo);
  const size_t bytes = a.workspace_bytes;
  const auto ws = workspace(bytes, device);
  EXADNN_CUDA_CHECK(cudnnConvolutionForward(
      h, s.one(), p.x.get(), x.data_ptr(), p.w.get(), weight.data_ptr(), p.conv, algo,
      ws ? ws->data() : nullptr, bytes, s.zero(), p.y.get(), out.data_ptr()));
  if (bias.defined()) {
    const TensorDesc b(x.dtype(), 1, g.o, 1, 1);
    EXADNN_CUDA_CHECK(
        cudnnAddTensor(h, s.one(), b.get(), bias.data_ptr(), s.one(), p.y.get(), out.data_ptr()));
  }
}

void conv_backward_data(const Conv2dGeometry& g, const Tensor& grad_x, const Tensor& grad_out,
                        const Tensor& weight) {
  const int device = cuda_device_of(grad_x, "conv2d_backward_data");
  DeviceGuard guard(device);
  cudnnHandle_t h = cudnn_handle(device);
  const ConvProblem p(g, grad_x.dtype());
  const Scaling s(grad_x.dtype());
  const ConvAlgorithm a = cached_conv_algorithm(
      device, ConvDirection::backward_data, g, grad_x.dtype(), tf32_enabled(), [&] {
        return measure<cudnnConvolutionBwdDataAlgoPerf_t>(
            CUDNN_CONVOLUTION_BWD_DATA_ALGO_COUNT, device, "conv2d_backward_data",
            [&](auto* perfs, int* returned, void* ws, size_t bytes) {
              return cudnnFindConvolutionBackwardDataAlgorithmEx(
                  h, p.w.get(), weight.data_ptr(), p.y.get(), grad_out.data_ptr(), p.conv,
                  p.x.get(), grad_x.data_ptr(), CUDNN_CONVOLUTION_BWD_DATA_ALGO_COUNT, returned,
                  perfs, ws, bytes);
            });
      });
  const auto algo = static_cast<cudnnConvolutionBwdDataAlgo_t>(a.algo);
  const size_t bytes = a.workspace_bytes;
  const auto ws = workspace(bytes, device);
  EXADNN_CUDA_CHECK(cudnnConvolutionBackwardData(
      h, s.one(), p.w.get(), weight.data_ptr(), p.y.get(), grad_out.data_ptr(), p.conv, algo,
      ws ? ws->data() : nullptr, bytes, s.zero(), p.x.get(), grad_x.data_ptr()));
}

void conv_backward_weights(const Conv2dGeometry& g, const Tensor& grad_weight,
                           const Tensor& grad_bias, const Tensor& grad_out, const Tensor& x) {
  const int device = cuda_device_of(grad_weight, "conv2d_backward_weights");
  DeviceGuard guard(device);
  cudnnHandle_t h = cudnn_handle(device);
  const ConvProblem p(g, x.dtype());
  const Scaling s(x.dtype());
  const ConvAlgorithm a = cached_conv_algorithm(
      device, ConvDirection::backward_weights, g, x.dtype(), tf32_enabled(), [&] {
        return measure<cudnnConvolutionBwdFilterAlgoPerf_t>(
            CUDNN_CONVOLUTION_BWD_FILTER_ALGO_COUNT, device, "conv2d_backward_weights",
            [&](auto* perfs, int* returned, void* ws, size_t bytes) {
              return cudnnFindConvolutionBackwardFilterAlgorithmEx(
                  h, p.x.get(), x.data_ptr(), p.y.get(), grad_out.data_ptr(), p.conv, p.w.get(),
                  grad_weight.data_ptr(), CUDNN_CONVOLUTION_BWD_FILTER_ALGO_COUNT, returned, perfs,
                  ws, bytes);
            });
      });
  const auto algo = static_cast<cudnnConvolutionBwdFilterAlgo_t>(a.algo);
  const size_t bytes = a.workspace_bytes;
  const auto ws = workspace(bytes, device);
  EXADNN_CUDA_CHECK(cudnnConvolutionBackwardFilter(
      h, s.one(), p.x.get(), x.data_ptr(), p.y.get(), grad_out.data_ptr(), p.conv, algo,
      ws ? ws->data() : nullptr, bytes, s.zero(), p.w.get(), grad_weight.data_ptr()));
  if (grad_bias.defined()) sum_per_channel(grad_bias, grad_out, h);
}

}  // namespace

void register_conv_kernels(KernelRegistry& r) {
  // 16-bit convolutions (autocast's) sum in f32 (ConvProblem's compute type).
  for (DType d : {DType::f32, DType::f64, DType::f16, DType::bf16}) {
    r.add(OpId::conv2d_forward, DeviceKind::cuda, d,
          reinterpret_cast<AnyKernel>(static_cast<Conv2dForwardKernel*>(&conv_forward)));
    r.add(OpId::conv2d_backward_data, DeviceKind::cuda, d,
          reinterpret_cast<AnyKernel>(static_cast<Conv2dBackwardDataKernel*>(&conv_backward_data)));
    r.add(OpId::conv2d_backward_weights, DeviceKind::cuda, d,
          reinterpret_cast<AnyKernel>(
              static_cast<Conv2dBackwardWeightsKernel*>(&conv_backward_weights)));
  }
}

}  // namespace exadnn::cuda
