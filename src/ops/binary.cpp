// Binary arithmetic with broadcasting and dtype promotion, and the gradient of each.
#include <cmath>

#include "exadnn/ops/comparison.h"
#include "exadnn/ops/elementwise.h"
#include "exadnn/ops/operators.h"
#include "internal.h"

namespace exadnn {

namespace {

// Operands converted to their common dtype (differentiably) and the broadcast output shape.
struct Operands {
  Tensor a, b;
  Shape shape;
};

Operands prepare(const Tensor& a, const Tensor& b, const char* op, bool floating_only) {
  ops::check_defined(a, op, "first operand");
  ops::check_defined(b, op, "second operand");
  ops::check_same_device(a, b, op);
  DType t = promote_types(a.dtype(), b.dtype());
  if (floating_only) t = ops::floating_dtype(t);
  return {a.to(t), b.to(t), ops::broadcast_shapes(a.shape(), b.shape(), op)};
}

Tensor compute(OpId op, const Operands& x) {
  Tensor out = ops::empty_on(x.shape, x.a.dtype(), x.a.device());
  lookup<BinaryKernel>(op, x.a.device().kind, x.a.dtype())(out, ops::broadcast_view(x.a, x.shape),
                                                           ops::broadcast_view(x.b, x.shape));
  return out;
}

// Gradient for an operand: `make()` only when that operand requires grad, summed to its shape.
template <class Make>
Tensor grad_for(const Tensor& operand, Make make) {
  if (!operand.requires_grad()) return Tensor();
  return ops::sum_to(make(), operand.shape());
}

using Grads = std::vector<Tensor>;

}  // namespace

Tensor add(const Tensor& a, const Tensor& b) {
  Operands x = prepare(a, b, "add", false);
  Tensor out = compute(OpId::add, x);
  ops::record("add", {x.a, x.b}, out, [a = x.a, b = x.b](const Grads& g) {
    return Grads{grad_for(a, [&] { return g[0]; }), grad_for(b, [&] { return g[0]; })};
  });
  return out;
}

Tensor add_relu(const Tensor& a, const Tensor& b) {
  Operands x = prepare(a, b, "add_relu", false);
  const DeviceKind kind = x.a.device().kind;
  if (!is_floating(x.a.dtype()) ||
      KernelRegistry::instance().find(OpId::add_relu, kind, x.a.dtype()) == nullptr)
    return relu(add(a, b));  // the two ops where no fused kernel is registered
  Tensor out = compute(OpId::add_relu, x);
  // The output is positive exactly where the sum is: it gives the mask, the sum is never stored.
  ops::record("add_relu", {x.a, x.b}, out, [a = x.a, b = x.b, y = out.detach()](const Grads& g) {
    Tensor dsum;
    auto masked = [&] { return dsum.defined() ? dsum : (dsum = ops::relu_grad(g[0], y)); };
    return Grads{grad_for(a, masked), grad_for(b, masked)};
  });
  return out;
}

Tensor sub(const Tensor& a, const Tensor& b) {
  Operands x = prepare(a, b, "sub", false);
  Tensor out = compute(OpId::sub, x);
  ops::record("sub", {x.a, x.b}, out, [a = x.a, b = x.b](const Grads& g) {
    return Grads{grad_for(a, [&] { return g[0]; }), grad_for(b, [&] { return neg(g[0]); })};
  });
  return out;
}

Tensor mul(const Tensor& a, const Tensor& b) {
  Operands x = prepare(a, b, "mul", false);
  Tensor out = compute(OpId::mul, x);
  ops::record("mul", {x.a, x.b}, out, [a = x.a, b = x.b](const Grads& g) {
    return Grads{grad_for(a, [&] { return g[0] * b; }), grad_for(b, [&] { return g[0] * a; })};
  });
  return out;
}

Tensor div(const Tensor& a, const Tensor& b) {
  Operands x = prepare(a, b, "div", true);
  Tensor out = compute(OpId::div, x);
  ops::record("div", {x.a, x.b}, out, [a = x.a, b = x.b](const Grads& g) {
    const Tensor& bd = b;
    return Grads{grad_for(a, [&] { return g[0] / bd; }),
                 grad_for(b, [&] { return neg(g[0] * a / (bd * bd)); })};
  });
  return out;
}

Tensor pow(const Tensor& a, const Tensor& b) {
  Operands x = prepare(a, b, "pow", true);
  Tensor out = compute(OpId::pow, x);
  ops::record("pow", {x.a, x.b}, out, [a = x.a, b = x.b, out = out.detach()](const Grads& g) {
    const Tensor &ad = a, &bd = b;
    return Grads{
        grad_for(a, [&] { return g[0] * bd * pow(ad, bd - 1.0); }),
        // d/db a^b = a^b log a, taken as 0 where a <= 0 (the real power is not differentiable)
        grad_for(b, [&] {
          const Tensor safe_log = log(where(gt(ad, scalar_like(0.0, ad)), ad, ones_like(ad)));
          return g[0] * out * safe_log;
        })};
  });
  return out;
}

namespace {

// maximum/minimum: the gradient goes to a where a wins or ties, else to b.
Tensor extremum(const Tensor& a, const Tensor& b, OpId op, const char* name) {
  Operands x = prepare(a, b, name, false);
  Tensor out = compute(op, x);
  const bool is_max = op == OpId::maximum;
  ops::record(name, {x.a, x.b}, out, [a = x.a, b = x.b, is_max](const Grads& g) {
    const Tensor a_wins = is_max ? ge(a, b) : le(a, b);
    const Tensor zero = scalar_like(0.0, g[0]);
    return Grads{grad_for(a, [&] { return where(a_wins, g[0], zero); }),
                 grad_for(b, [&] { return where(a_wins, zero, g[0]); })};
  });
  return out;
}

}  // namespace

Tensor maximum(const Tensor& a, const Tensor& b) {
  return extremum(a, b, OpId::maximum, "maximum");
}
Tensor minimum(const Tensor& a, const Tensor& b) {
  return extremum(a, b, OpId::minimum, "minimum");
}

Tensor scalar_like(double value, const Tensor& like) {
  DType t = like.dtype();
  if (!is_floating(t) && value != std::floor(value)) t = DType::f32;
  if (t == DType::boolean || t == DType::u8)
    t = value == std::floor(value) ? DType::i64 : DType::f32;
  return scalar_tensor(value, TensorOptions(t).device(like.device()));
}

}  // namespace exadnn
