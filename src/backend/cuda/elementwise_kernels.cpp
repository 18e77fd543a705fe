// The cuda row of the dispatch table for the elementwise ops: copy, cast, fill, unary, binary,
// compare, where and relu_backward. Each wrapper makes the output's device current, turns the
// tensors into kernel arguments (tensor_args.h) and calls a launcher of elementwise.cu.
#include <type_traits>

#include "cuda_check.h"
#include "exadnn/backend/dispatch.h"
#include "exadnn/backend/kernels.h"
#include "register.h"
#include "tensor_args.h"

namespace exadnn::cuda {

namespace {

void copy_kernel(const Tensor& out, const Tensor& src) {
  DeviceGuard guard(cuda_device_of(out, "copy"));
  Operand ops[2];
  const IterShape s = make_iter(out.shape(), {&out, &src}, ops);
  launch_copy(s, ops[0], ops[1], static_cast<int>(out.element_size()));
}

void cast_kernel(const Tensor& out, const Tensor& src) {
  DeviceGuard guard(cuda_device_of(out, "cast"));
  Operand ops[2];
  const IterShape s = make_iter(out.shape(), {&out, &src}, ops);
  launch_cast(s, ops[0], elem_type(out.dtype()), ops[1], elem_type(src.dtype()));
}

void fill_kernel(const Tensor& out, double value) {
  DeviceGuard guard(cuda_device_of(out, "fill"));
  Operand ops[1];
  const IterShape s = make_iter(out.shape(), {&out}, ops);
  launch_fill(s, ops[0], elem_type(out.dtype()), value);
}

template <UnaryOp kOp>
void unary_kernel(const Tensor& out, const Tensor& in, const UnaryParams& p) {
  DeviceGuard guard(cuda_device_of(out, "unary"));
  Operand ops[2];
  const IterShape s = make_iter(out.shape(), {&out, &in}, ops);
  launch_unary(kOp, elem_type(out.dtype()), s, ops[0], ops[1], p.a, p.b);
}

template <BinaryOp kOp>
void binary_kernel(const Tensor& out, const Tensor& a, const Tensor& b) {
  DeviceGuard guard(cuda_device_of(out, "binary"));
  Operand ops[3];
  const IterShape s = make_iter(out.shape(), {&out, &a, &b}, ops);
  launch_binary(kOp, elem_type(out.dtype()), s, ops[0], ops[1], ops[2]);
}

template <CompareOp kOp>
void compare_kernel(const Tensor& out, const Tensor& a, const Tensor& b) {
  DeviceGuard guard(cuda_device_of(out, "compare"));
  Operand ops[3];
  const IterShape s = make_iter(out.shape(), {&out, &a, &b}, ops);
  launch_compare(kOp, elem_type(a.dtype()), s, ops[0], ops[1], ops[2]);
}

void where_kernel(const Tensor& out, const Tensor& cond, const Tensor& a, const Tensor& b) {
  DeviceGuard guard(cuda_device_of(out, "where"));
  Operand ops[4];
  const IterShape s = make_iter(out.shape(), {&out, &cond, &a, &b}, ops);
  launch_where(s, ops[0], ops[1], ops[2], ops[3], static_cast<int>(out.element_size()));
}

template <class Signature>
void put(KernelRegistry& r, OpId op, DType dtype, Signature* kernel) {
  r.add(op, DeviceKind::cuda, dtype, reinterpret_cast<AnyKernel>(kernel));
}

}  // namespace

void register_elementwise_kernels(KernelRegistry& r) {
  for (int t = 0; t < kDTypeCount; ++t) {
    const DType d = static_cast<DType>(t);
    put<CopyKernel>(r, OpId::copy, d, &copy_kernel);
    put<CastKernel>(r, OpId::cast, d, &cast_kernel);
    put<FillKernel>(r, OpId::fill, d, &fill_kernel);
    put<CompareKernel>(r, OpId::eq, d, &compare_kernel<CompareOp::eq>);
    put<CompareKernel>(r, OpId::ne, d, &compare_kernel<CompareOp::ne>);
    put<CompareKernel>(r, OpId::lt, d, &compare_kernel<CompareOp::lt>);
    put<CompareKernel>(r, OpId::le, d, &compare_kernel<CompareOp::le>);
    put<CompareKernel>(r, OpId::gt, d, &compare_kernel<CompareOp::gt>);
    put<CompareKernel>(r, OpId::ge, d, &compare_kernel<CompareOp::ge>);
    put<WhereKernel>(r, OpId::where, d, &where_kernel);
    if (d == DType::boolean) continue;  // no arithmetic on bool, as on the CPU
    put<UnaryKernel>(r, OpId::abs, d, &unary_kernel<UnaryOp::abs>);
    put<UnaryKernel>(r, OpId::relu, d, &unary_kernel<UnaryOp::relu>);
    put<UnaryKernel>(r, OpId::clamp, d, &unary_kernel<UnaryOp::clamp>);
    put<BinaryKernel>(r, OpId::add, d, &binary_kernel<BinaryOp::add>);
    put<BinaryKernel>(r, OpId::sub, d, &binary_kernel<BinaryOp::sub>);
    put<BinaryKernel>(r, OpId::mul, d, &binary_kernel<BinaryOp::mul>);
    put<BinaryKernel>(r, OpId::maximum, d, &binary_kernel<BinaryOp::maximum>);
    put<BinaryKernel>(r, OpId::minimum, d, &binary_kernel<BinaryOp::minimum>);
    if (d != DType::u8) {
      put<UnaryKernel>(r, OpId::neg, d, &unary_kernel<UnaryOp::neg>);
      put<UnaryKernel>(r, OpId::sign, d, &unary_kernel<UnaryOp::sign>);
    }
    if (!is_floating(d)) continue;  // the ops layer computes the rest of integers in f32
    put<UnaryKernel>(r, OpId::exp, d, &unary_kernel<UnaryOp::exp>);
    put<UnaryKernel>(r, OpId::log, d, &unary_kernel<UnaryOp::log>);
    put<UnaryKernel>(r, OpId::sqrt, d, &unary_kernel<UnaryOp::sqrt>);
    put<UnaryKernel>(r, OpId::tanh, d, &unary_kernel<UnaryOp::tanh>);
    put<UnaryKernel>(r, OpId::sigmoid, d, &unary_kernel<UnaryOp::sigmoid>);
    put<UnaryKernel>(r, OpId::pow_scalar, d, &unary_kernel<UnaryOp::pow_scalar>);
    put<BinaryKernel>(r, OpId::div, d, &binary_kernel<BinaryOp::div>);
    put<BinaryKernel>(r, OpId::pow, d, &binary_kernel<BinaryOp::pow>);
    put<BinaryKernel>(r, OpId::relu_backward, d, &binary_kernel<BinaryOp::relu_backward>);
  }
}

}  // namespace exadnn::cuda
