// Reductions over sets of axes, and their gradients.
#include "exadnn/ops/reduction.h"

#include <limits>

#include "autocast.h"
#include "exadnn/ops/comparison.h"
#include "exadnn/ops/elementwise.h"
#include "exadnn/ops/operators.h"
#include "internal.h"

namespace exadnn {

namespace {

using Grads = std::vector<Tensor>;

// How a reduction over `axes` maps x onto its output.
struct Plan {
  Tensor permuted;      // x viewed as [kept..., reduced...]
  int64_t reduced = 0;  // number of reduced axes
  int64_t count = 1;    // elements folded into each output
  Shape kept_shape;     // output shape with reduced axes removed
  Shape keep_shape;     // output shape with reduced axes kept as 1
};

Plan make_plan(const Tensor& x, const Axes& axes, const char* op) {
  ops::check_defined(x, op);
  std::vector<bool> is_reduced(static_cast<size_t>(x.dim()), axes.empty());
  for (int64_t a : axes) {
    if (x.dim() == 0) {
      check_scalar_axis(a, op);
      continue;
    }
    const int64_t axis = normalize_axis(a, x.dim(), op);
    EXADNN_CHECK(!is_reduced[axis], op, "axis ", a, " is listed twice");
    is_reduced[axis] = true;
  }
  Plan p;
  std::vector<int64_t> order;
  for (int64_t i = 0; i < x.dim(); ++i) {
    if (is_reduced[i]) continue;
    order.push_back(i);
    p.kept_shape.push_back(x.shape()[i]);
  }
  for (int64_t i = 0; i < x.dim(); ++i) {
    p.keep_shape.push_back(is_reduced[i] ? 1 : x.shape()[i]);
    if (!is_reduced[i]) continue;
    order.push_back(i);
    p.count *= x.shape()[i];
    ++p.reduced;
  }
  Shape s;
  Strides st;
  for (int64_t i : order) {
    s.push_back(x.shape()[i]);
    st.push_back(x.strides()[i]);
  }
  p.permuted = make_view(x.storage(), s, st, x.offset(), x.dtype());
  return p;
}

// Runs the reduce kernel; the result has keep_shape or kept_shape.
Tensor run_reduce(OpId op, const Plan& p, bool keepdim) {
  Tensor out = ops::empty_on(p.kept_shape, p.permuted.dtype(), p.permuted.device());
  lookup<ReduceKernel>(op, p.permuted.device().kind, p.permuted.dtype())(out, p.permuted,
                                                                         p.reduced);
  return keepdim ? make_view(out.storage(), p.keep_shape, contiguous_strides(p.keep_shape), 0,
                             out.dtype())
                 : out;
}

// Integer and bool sums accumulate in i64.
DType sum_dtype(DType t) {
  return is_floating(t) ? t : DType::i64;
}

// max and min: the gradient is shared equally by every element equal to the result.
Tensor extreme(const Tensor& x, const Axes& axes, bool keepdim, OpId op, const char* name) {
  Plan p = make_plan(x, axes, name);
  EXADNN_CHECK(p.count > 0 || p.reduced == 0, name, "cannot reduce an empty tensor of shape ",
               x.shape());
  Tensor out = run_reduce(op, p, keepdim);
  const Shape keep_shape = p.keep_shape;
  ops::record(name, {x}, out, [x, axes, keep_shape, out = out.detach()](const Grads& g) {
    const Tensor hit = eq(x, out.reshape(keep_shape)).to(g[0].dtype());
    const Tensor ties = sum(hit, axes, /*keepdim=*/true);
    return Grads{hit * g[0].reshape(keep_shape) / ties};
  });
  return out;
}

Tensor arg_extreme(const Tensor& x, int64_t axis, bool keepdim, OpId op, const char* name) {
  ops::check_defined(x, name);
  const Tensor flat = x.dim() == 0 ? x.reshape({1}) : x;
  axis = normalize_axis(axis, flat.dim(), name);
  EXADNN_CHECK(flat.shape()[axis] > 0, name, "cannot take ", name, " over axis ", axis,
               " of size 0 in shape ", x.shape());
  Plan p = make_plan(flat.detach(), {axis}, name);
  Tensor out = ops::empty_on(p.kept_shape, DType::i64, x.device());
  lookup<ArgReduceKernel>(op, x.device().kind, x.dtype())(out, p.permuted);
  if (!keepdim) return x.dim() == 0 ? out.reshape({}) : out;
  return out.reshape(x.dim() == 0 ? Shape{} : p.keep_shape);
}

}  // namespace

Tensor sum(const Tensor& x0, const Axes& axes, bool keepdim) {
  ops::check_defined(x0, "sum");
  const Tensor xa = autocast_to_f32(x0);  // autocast keeps reductions in f32
  const Tensor x = xa.to(sum_dtype(xa.dtype()));
  Plan p = make_plan(x, axes, "sum");
  Tensor out = run_reduce(OpId::sum, p, keepdim);
  ops::record("sum", {x}, out, [shape = x.shape(), keep = p.keep_shape](const Grads& g) {
    return Grads{g[0].reshape(keep).expand(shape)};
  });
  return out;
}

Tensor mean(const Tensor& x, const Axes& axes, bool keepdim) {
  ops::check_defined(x, "mean");
  const Tensor xa = autocast_to_f32(x);
  const Tensor xf = xa.to(ops::floating_dtype(xa.dtype()));
  const Plan p = make_plan(xf, axes, "mean");
  return sum(xf, axes, keepdim) / static_cast<double>(p.count);
}

Tensor max(const Tensor& x, const Axes& axes, bool keepdim) {
  return extreme(x, axes, keepdim, OpId::max, "max");
}

Tensor min(const Tensor& x, const Axes& axes, bool keepdim) {
  return extreme(x, axes, keepdim, OpId::min, "min");
}

Tensor logsumexp(const Tensor& x0, const Axes& axes, bool keepdim) {
  ops::check_defined(x0, "logsumexp");
  const Tensor x = x0.to(ops::floating_dtype(x0.dtype()));
  const Plan p = make_plan(x.detach(), axes, "logsumexp");  // validates axes under this op's name
  Tensor shift = max(x.detach(), axes, /*keepdim=*/true);
  // An all -inf (or +inf) slice would give inf - inf; shift it by 0 instead.
  const double inf = std::numeric_limits<double>::infinity();
  shift = where(lt(abs(shift), scalar_like(inf, shift)), shift, scalar_like(0.0, shift));
  Tensor out = log(sum(exp(x - shift), axes, /*keepdim=*/true)) + shift;
  if (keepdim) return out;
  return out.reshape(p.kept_shape);
}

Tensor argmax(const Tensor& x, int64_t axis, bool keepdim) {
  return arg_extreme(x, axis, keepdim, OpId::argmax, "argmax");
}
Tensor argmin(const Tensor& x, int64_t axis, bool keepdim) {
  return arg_extreme(x, axis, keepdim, OpId::argmin, "argmin");
}
Tensor argmax(const Tensor& x) {
  return argmax(x.reshape({-1}), 0);
}
Tensor argmin(const Tensor& x) {
  return argmin(x.reshape({-1}), 0);
}

}  // namespace exadnn
