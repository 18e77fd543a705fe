// Comparisons (bool results, no gradient) and where (gradient to the chosen branch).
#include "exadnn/ops/comparison.h"

#include "exadnn/ops/elementwise.h"
#include "internal.h"

namespace exadnn {

namespace {

Tensor compare(OpId op, const Tensor& a, const Tensor& b, const char* name) {
  ops::check_defined(a, name, "first operand");
  ops::check_defined(b, name, "second operand");
  ops::check_same_device(a, b, name);
  const DType t = promote_types(a.dtype(), b.dtype());
  const Shape shape = ops::broadcast_shapes(a.shape(), b.shape(), name);
  Tensor out = ops::empty_on(shape, DType::boolean, a.device());
  lookup<CompareKernel>(op, a.device().kind, t)(out,
                                                ops::broadcast_view(ops::cast_raw(a, t), shape),
                                                ops::broadcast_view(ops::cast_raw(b, t), shape));
  return out;
}

}  // namespace

Tensor eq(const Tensor& a, const Tensor& b) {
  return compare(OpId::eq, a, b, "eq");
}
Tensor ne(const Tensor& a, const Tensor& b) {
  return compare(OpId::ne, a, b, "ne");
}
Tensor lt(const Tensor& a, const Tensor& b) {
  return compare(OpId::lt, a, b, "lt");
}
Tensor le(const Tensor& a, const Tensor& b) {
  return compare(OpId::le, a, b, "le");
}
Tensor gt(const Tensor& a, const Tensor& b) {
  return compare(OpId::gt, a, b, "gt");
}
Tensor ge(const Tensor& a, const Tensor& b) {
  return compare(OpId::ge, a, b, "ge");
}

Tensor where(const Tensor& cond, const Tensor& a0, const Tensor& b0) {
  ops::check_defined(cond, "where", "condition");
  ops::check_defined(a0, "where", "first operand");
  ops::check_defined(b0, "where", "second operand");
  EXADNN_CHECK(cond.dtype() == DType::boolean, "where", "condition must be bool, got ",
               dtype_name(cond.dtype()));
  ops::check_same_device(a0, b0, "where");
  ops::check_same_device(cond, a0, "where");
  const DType t = promote_types(a0.dtype(), b0.dtype());
  const Tensor a = a0.to(t), b = b0.to(t);
  const Shape shape = ops::broadcast_shapes(
      cond.shape(), ops::broadcast_shapes(a.shape(), b.shape(), "where"), "where");
  Tensor out = ops::empty_on(shape, t, a.device());
  lookup<WhereKernel>(OpId::where, a.device().kind, t)(out, ops::broadcast_view(cond, shape),
                                                       ops::broadcast_view(a, shape),
                                                       ops::broadcast_view(b, shape));
  ops::record("where", {a, b}, out, [cond, a, b](const std::vector<Tensor>& g) {
    const Tensor zero = scalar_like(0.0, g[0]);
    return std::vector<Tensor>{
        a.requires_grad() ? ops::sum_to(where(cond, g[0], zero), a.shape()) : Tensor(),
        b.requires_grad() ? ops::sum_to(where(cond, zero, g[0]), b.shape()) : Tensor()};
  });
  return out;
}

}  // namespace exadnn
