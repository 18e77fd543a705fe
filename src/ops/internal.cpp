#include "internal.h"

#include "exadnn/ops/reduction.h"

namespace exadnn::ops {

void check_defined(const Tensor& t, const char* op, const char* what) {
  EXADNN_CHECK(t.defined(), op, what, " is an undefined tensor");
}

void check_same_device(const Tensor& a, const Tensor& b, const char* op) {
  EXADNN_CHECK(a.device() == b.device(), op, "operands on different devices: ", a.device().str(),
               " and ", b.device().str());
}

Shape broadcast_shapes(const Shape& a, const Shape& b, const char* op) {
  const int64_t n = std::max(a.size(), b.size());
  Shape out = Dims::filled(n, 1);
  for (int64_t i = 0; i < n; ++i) {
    const int64_t ai = i - (n - a.size()), bi = i - (n - b.size());
    const int64_t da = ai >= 0 ? a[ai] : 1, db = bi >= 0 ? b[bi] : 1;
    EXADNN_CHECK(da == db || da == 1 || db == 1, op, "shapes ", a, " and ", b,
                 " cannot be broadcast together (dim ", i, ": ", da, " vs ", db, ")");
    out[i] = da == 1 ? db : da;
  }
  return out;
}

Tensor broadcast_view(const Tensor& t, const Shape& shape) {
  if (t.shape() == shape) return t;
  const int64_t lead = shape.size() - t.dim();
  Strides strides = Dims::filled(shape.size(), 0);
  for (int64_t i = 0; i < t.dim(); ++i)
    strides[lead + i] = t.shape()[i] == 1 && shape[lead + i] != 1 ? 0 : t.strides()[i];
  return make_view(t.storage(), shape, strides, t.offset(), t.dtype());
}

Tensor sum_to(const Tensor& grad, const Shape& shape) {
  if (grad.shape() == shape) return grad;
  const int64_t lead = grad.dim() - shape.size();
  Axes axes;
  for (int64_t i = 0; i < grad.dim(); ++i)
    if (i < lead || (shape[i - lead] == 1 && grad.shape()[i] != 1)) axes.push_back(i);
  Tensor s = sum(grad, axes, /*keepdim=*/true);
  return s.reshape(shape);
}

Tensor empty_on(const Shape& shape, DType dtype, Device device) {
  return empty(shape, TensorOptions(dtype).device(device));
}

Tensor empty_channels_last(const Shape& nchw, DType dtype, Device device) {
  return empty_on({nchw[0], nchw[2], nchw[3], nchw[1]}, dtype, device).permute({0, 3, 1, 2});
}

Tensor empty_with_layout_of(const Tensor& t) {
  const Tensor packed = empty_on({t.numel()}, t.dtype(), t.device());
  return make_view(packed.storage(), t.shape(), t.strides(), 0, t.dtype());
}

Tensor flat_view(const Tensor& t) {
  return make_view(t.storage(), {t.numel()}, {1}, t.offset(), t.dtype());
}

Tensor relu_grad(const Tensor& dy_in, const Tensor& sign_source) {
  const Tensor& s = sign_source;
  const auto kernel = lookup<BinaryKernel>(OpId::relu_backward, s.device().kind, s.dtype());
  const Tensor dy = dy_in.to(s.dtype());
  if (is_channels_last(s) && !s.is_contiguous() && dy.shape() == s.shape() &&
      dy.strides() == s.strides()) {
    Tensor grad = empty_with_layout_of(s);  // channels-last in, out and gradient
    kernel(flat_view(grad), flat_view(dy), flat_view(s));
    return grad;
  }
  Tensor grad = empty_on(s.shape(), s.dtype(), s.device());
  kernel(grad, broadcast_view(dy, s.shape()), s);
  return grad;
}

Tensor in_format(const Tensor& t, MemoryFormat format) {
  const Tensor raw = t.detach();
  if (format == MemoryFormat::contiguous) return raw.contiguous();
  if (is_channels_last(raw)) return raw;
  return raw.permute({0, 2, 3, 1}).contiguous().permute({0, 3, 1, 2});
}

Tensor cast_raw(const Tensor& t, DType dtype) {
  if (t.dtype() == dtype) return t;
  Tensor out = empty_on(t.shape(), dtype, t.device());
  lookup<CastKernel>(OpId::cast, t.device().kind, t.dtype())(out, t);
  return out;
}

DType floating_dtype(DType t) {
  return is_floating(t) ? t : DType::f32;
}

}  // namespace exadnn::ops
