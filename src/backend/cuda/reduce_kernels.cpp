// The cuda row of the dispatch table for reductions (sum, max, min over the last r axes,
// argmax/argmin over the last axis) and for sum_squares (gradient clipping).
#include "cuda_check.h"
#include "exadnn/backend/dispatch.h"
#include "exadnn/backend/kernels.h"
#include "exadnn/backend/optim_kernels.h"
#include "register.h"
#include "tensor_args.h"

namespace exadnn::cuda {

namespace {

// in: [kept..., reduced...] (the op permuted the reduced axes last); out: dense [kept...].
template <ReduceOp kOp>
void reduce_kernel(const Tensor& out, const Tensor& in, int64_t reduced_dims) {
  DeviceGuard guard(cuda_device_of(out, "reduce"));
  const int64_t kept = in.dim() - reduced_dims;
  Operand rows, cols;
  const IterShape row_shape = make_iter_axes(in, 0, kept, rows);
  const IterShape col_shape = make_iter_axes(in, kept, in.dim(), cols);
  launch_reduce(kOp, elem_type(in.dtype()), row_shape, rows, col_shape, cols, out.data_ptr());
}

// in: [kept..., axis]; out: dense i64 [kept...].
template <bool kGreatest>
void arg_reduce_kernel(const Tensor& out, const Tensor& in) {
  DeviceGuard guard(cuda_device_of(out, "arg-reduce"));
  const int64_t last = in.dim() - 1;
  Operand rows;
  const IterShape row_shape = make_iter_axes(in, 0, last, rows);
  launch_arg_reduce(kGreatest, elem_type(in.dtype()), row_shape, rows, in.shape()[last],
                    in.strides()[last], out.data_ptr());
}

double sum_squares_kernel(const Tensor& x) {
  const int device = cuda_device_of(x, "sum_squares");
  DeviceGuard guard(device);
  const auto scratch = Storage::allocate((kSumSquaresBlocks + 1) * sizeof(double),
                                         Device::cuda(device), MemoryKind::device);
  auto* partial = static_cast<double*>(scratch->data());
  launch_sum_squares(elem_type(x.dtype()), x.data_ptr(), x.numel(), partial);
  double sum = 0.0;
  // Synchronous, on the legacy default stream: ordered after the kernels.
  EXADNN_CUDA_CHECK(
      cudaMemcpy(&sum, partial + kSumSquaresBlocks, sizeof sum, cudaMemcpyDeviceToHost));
  return sum;
}

template <class Signature>
void put(KernelRegistry& r, OpId op, DType dtype, Signature* kernel) {
  r.add(op, DeviceKind::cuda, dtype, reinterpret_cast<AnyKernel>(kernel));
}

}  // namespace

void register_reduce_kernels(KernelRegistry& r) {
  for (int t = 0; t < kDTypeCount; ++t) {
    const DType d = static_cast<DType>(t);
    if (d == DType::boolean) continue;  // sums of bool promote to i64 in the op
    put<ReduceKernel>(r, OpId::sum, d, &reduce_kernel<ReduceOp::sum>);
    put<ReduceKernel>(r, OpId::max, d, &reduce_kernel<ReduceOp::max>);
    put<ReduceKernel>(r, OpId::min, d, &reduce_kernel<ReduceOp::min>);
    put<ArgReduceKernel>(r, OpId::argmax, d, &arg_reduce_kernel<true>);
    put<ArgReduceKernel>(r, OpId::argmin, d, &arg_reduce_kernel<false>);
    if (is_floating(d)) put<SumSquaresKernel>(r, OpId::sum_squares, d, &sum_squares_kernel);
  }
}

}  // namespace exadnn::cuda
