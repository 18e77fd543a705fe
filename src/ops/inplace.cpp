// In-place updates (not recorded in the graph).
#include "exadnn/ops/inplace.h"

#include "exadnn/autograd/grad_mode.h"
#include "internal.h"

namespace exadnn {

namespace {

void check_writable(const Tensor& dst, const char* op) {
  ops::check_defined(dst, op, "destination");
  EXADNN_CHECK(!(GradMode::is_enabled() && dst.requires_grad()), op,
               "in-place update of a tensor that requires grad (shape ", dst.shape(),
               "); do it under NoGradGuard");
}

// src converted to dst's dtype and device, and broadcast to dst's shape.
Tensor prepared_source(const Tensor& dst, const Tensor& src, const char* op) {
  ops::check_defined(src, op, "source");
  ops::check_same_device(dst, src, op);
  const Shape shape = ops::broadcast_shapes(dst.shape(), src.shape(), op);
  EXADNN_CHECK(shape == dst.shape(), op, "source of shape ", src.shape(),
               " cannot be broadcast to destination of shape ", dst.shape());
  return ops::broadcast_view(ops::cast_raw(src.detach(), dst.dtype()), dst.shape());
}

}  // namespace

void copy_(const Tensor& dst, const Tensor& src) {
  check_writable(dst, "copy_");
  const Tensor s = prepared_source(dst, src, "copy_");
  lookup<CopyKernel>(OpId::copy, dst.device().kind, dst.dtype())(dst, s);
}

void fill_(const Tensor& dst, double value) {
  check_writable(dst, "fill_");
  lookup<FillKernel>(OpId::fill, dst.device().kind, dst.dtype())(dst, value);
}

void add_(const Tensor& dst, const Tensor& src, double alpha) {
  check_writable(dst, "add_");
  Tensor s = prepared_source(dst, src, "add_");
  if (alpha != 1.0) {
    Tensor scaled = ops::empty_on(dst.shape(), dst.dtype(), dst.device());
    Tensor a = ops::cast_raw(scalar_tensor(alpha, TensorOptions(DType::f64).device(dst.device())),
                             dst.dtype());
    lookup<BinaryKernel>(OpId::mul, dst.device().kind, dst.dtype())(
        scaled, s, ops::broadcast_view(a, dst.shape()));
    s = scaled;
  }
  lookup<BinaryKernel>(OpId::add, dst.device().kind, dst.dtype())(dst, dst, s);
}

namespace {
// dst = value * src, src already prepared (dst's dtype, device and shape).
void multiply_into(const Tensor& dst, const Tensor& src, double value) {
  Tensor a = ops::cast_raw(scalar_tensor(value, TensorOptions(DType::f64).device(dst.device())),
                           dst.dtype());
  lookup<BinaryKernel>(OpId::mul, dst.device().kind, dst.dtype())(
      dst, src, ops::broadcast_view(a, dst.shape()));
}
}  // namespace

void mul_(const Tensor& dst, double value) {
  check_writable(dst, "mul_");
  multiply_into(dst, dst, value);
}

void scaled_copy_(const Tensor& dst, const Tensor& src, double value) {
  check_writable(dst, "scaled_copy_");
  multiply_into(dst, prepared_source(dst, src, "scaled_copy_"), value);
}

}  // namespace exadnn
