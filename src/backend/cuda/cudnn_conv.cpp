// 2-D convolution forward and backward through cuDNN (legacy descriptor API, cudnn_cnn).
// Algorithms come from cuDNN's heuristics (cudnnGet*Algorithm_v7), deterministic ones first.
// f32 convolutions use FMA math (true f32) unless this thread opted in to TF32
// (exadnn::cuda::tf32_enabled), which lets cuDNN use tensor cores.
#include "cudnn_kernels.h"

#include <vector>

#include "cuda_check.h"
#include "cudnn_context.h"
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
      // Sums in the data type (f32 for f32, f64 for f64).
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

// The first usable algorithm of a heuristic list, preferring deterministic ones.
template <class Perf>
decltype(Perf{}.algo) pick(const std::vector<Perf>& perfs, int returned, const char* op) {
  for (int pass = 0; pass < 2; ++pass)
    for (int i = 0; i < returned; ++i)
      if (perfs[i].status == CUDNN_STATUS_SUCCESS &&
          (pass == 1 || perfs[i].determinism == CUDNN_DETERMINISTIC))
        return perfs[i].algo;
  throw Error(op, "cuDNN offers no algorithm for this convolution");
}

void conv_forward(const Conv2dGeometry& g, const Tensor& out, const Tensor& x, const Tensor& weight,
                  const Tensor& bias) {
  const int device = cuda_device_of(out, "conv2d");
  DeviceGuard guard(device);
  cudnnHandle_t h = cudnn_handle(device);
  const ConvProblem p(g, x.dtype());
  const Scaling s(x.dtype());
  std::vector<cudnnConvolutionFwdAlgoPerf_t> perfs(CUDNN_CONVOLUTION_FWD_ALGO_COUNT);
  int returned = 0;
  EXADNN_CUDA_CHECK(cudnnGetConvolutionForwardAlgorithm_v7(
      h, p.x.get(), p.w.get(), p.conv, p.y.get(), static_cast<int>(perfs.size()), &returned,
      perfs.data()));
  const auto algo = pick(perfs, returned, "conv2d");
  size_t bytes = 0;
  EXADNN_CUDA_CHECK(cudnnGetConvolutionForwardWorkspaceSize(h, p.x.get(), p.w.get(), p.conv,
                                                            p.y.get(), algo, &bytes));
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
  std::vector<cudnnConvolutionBwdDataAlgoPerf_t> perfs(CUDNN_CONVOLUTION_BWD_DATA_ALGO_COUNT);
  int returned = 0;
  EXADNN_CUDA_CHECK(cudnnGetConvolutionBackwardDataAlgorithm_v7(
      h, p.w.get(), p.y.get(), p.conv, p.x.get(), static_cast<int>(perfs.size()), &returned,
      perfs.data()));
  const auto algo = pick(perfs, returned, "conv2d_backward_data");
  size_t bytes = 0;
  EXADNN_CUDA_CHECK(cudnnGetConvolutionBackwardDataWorkspaceSize(h, p.w.get(), p.y.get(), p.conv,
                                                                 p.x.get(), algo, &bytes));
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
  std::vector<cudnnConvolutionBwdFilterAlgoPerf_t> perfs(CUDNN_CONVOLUTION_BWD_FILTER_ALGO_COUNT);
  int returned = 0;
  EXADNN_CUDA_CHECK(cudnnGetConvolutionBackwardFilterAlgorithm_v7(
      h, p.x.get(), p.y.get(), p.conv, p.w.get(), static_cast<int>(perfs.size()), &returned,
      perfs.data()));
  const auto algo = pick(perfs, returned, "conv2d_backward_weights");
  size_t bytes = 0;
  EXADNN_CUDA_CHECK(cudnnGetConvolutionBackwardFilterWorkspaceSize(h, p.x.get(), p.y.get(), p.conv,
                                                                   p.w.get(), algo, &bytes));
  const auto ws = workspace(bytes, device);
  EXADNN_CUDA_CHECK(cudnnConvolutionBackwardFilter(
      h, s.one(), p.x.get(), x.data_ptr(), p.y.get(), grad_out.data_ptr(), p.conv, algo,
      ws ? ws->data() : nullptr, bytes, s.zero(), p.w.get(), grad_weight.data_ptr()));
  if (grad_bias.defined()) {
    const TensorDesc b(x.dtype(), 1, g.o, 1, 1);
    EXADNN_CUDA_CHECK(cudnnConvolutionBackwardBias(h, s.one(), p.y.get(), grad_out.data_ptr(),
                                                   s.zero(), b.get(), grad_bias.data_ptr()));
  }
}

}  // namespace

void register_conv_kernels(KernelRegistry& r) {
  for (DType d : {DType::f32, DType::f64}) {
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
