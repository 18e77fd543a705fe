// Unary elementwise math and the gradient of each.
#include "exadnn/ops/comparison.h"
#include "exadnn/ops/elementwise.h"
#include "exadnn/ops/operators.h"
#include "internal.h"

namespace exadnn {

namespace {

using Grads = std::vector<Tensor>;

// True when x is channels-last and not also contiguous: the layout an elementwise result keeps.
bool keeps_channels_last(const Tensor& x) {
  return is_channels_last(x) && !x.is_contiguous();
}

// Runs the unary kernel `op`; integer inputs of floating-only ops are computed in f32. A
// channels-last input gives a channels-last result (one pass over the packed elements).
Tensor compute(OpId op, const Tensor& x, bool floating_only, UnaryParams params = {}) {
  const Tensor in = floating_only ? x.to(ops::floating_dtype(x.dtype())) : x;
  const auto kernel = lookup<UnaryKernel>(op, in.device().kind, in.dtype());
  if (keeps_channels_last(in)) {
    Tensor out = ops::empty_with_layout_of(in);
    kernel(ops::flat_view(out), ops::flat_view(in), params);
    return out;
  }
  Tensor out = ops::empty_on(in.shape(), in.dtype(), in.device());
  kernel(out, in, params);
  return out;
}

// The input the node is connected to (after any conversion compute() made).
Tensor input_of(const Tensor& x, bool floating_only) {
  return floating_only ? x.to(ops::floating_dtype(x.dtype())) : x;
}

Tensor mask_as(const Tensor& mask, const Tensor& like) {
  return mask.to(like.dtype());
}

}  // namespace

Tensor neg(const Tensor& x) {
  ops::check_defined(x, "neg");
  Tensor out = compute(OpId::neg, x, false);
  ops::record("neg", {x}, out, [](const Grads& g) { return Grads{neg(g[0])}; });
  return out;
}

Tensor abs(const Tensor& x) {
  ops::check_defined(x, "abs");
  Tensor out = compute(OpId::abs, x, false);
  ops::record("abs", {x}, out, [x](const Grads& g) { return Grads{g[0] * sign(x)}; });
  return out;
}

Tensor sign(const Tensor& x) {
  ops::check_defined(x, "sign");
  Tensor out = compute(OpId::sign, x, false);
  ops::record("sign", {x}, out, [](const Grads& g) { return Grads{zeros_like(g[0])}; });
  return out;
}

Tensor exp(const Tensor& x) {
  ops::check_defined(x, "exp");
  const Tensor in = input_of(x, true);
  Tensor out = compute(OpId::exp, in, true);
  ops::record("exp", {in}, out, [y = out.detach()](const Grads& g) { return Grads{g[0] * y}; });
  return out;
}

Tensor log(const Tensor& x) {
  ops::check_defined(x, "log");
  const Tensor in = input_of(x, true);
  Tensor out = compute(OpId::log, in, true);
  ops::record("log", {in}, out, [in](const Grads& g) { return Grads{g[0] / in}; });
  return out;
}

Tensor sqrt(const Tensor& x) {
  ops::check_defined(x, "sqrt");
  const Tensor in = input_of(x, true);
  Tensor out = compute(OpId::sqrt, in, true);
  ops::record("sqrt", {in}, out,
              [y = out.detach()](const Grads& g) { return Grads{g[0] / (y * 2.0)}; });
  return out;
}

Tensor tanh(const Tensor& x) {
  ops::check_defined(x, "tanh");
  const Tensor in = input_of(x, true);
  Tensor out = compute(OpId::tanh, in, true);
  ops::record("tanh", {in}, out,
              [y = out.detach()](const Grads& g) { return Grads{g[0] * (1.0 - y * y)}; });
  return out;
}

Tensor sigmoid(const Tensor& x) {
  ops::check_defined(x, "sigmoid");
  const Tensor in = input_of(x, true);
  Tensor out = compute(OpId::sigmoid, in, true);
  ops::record("sigmoid", {in}, out,
              [y = out.detach()](const Grads& g) { return Grads{g[0] * y * (1.0 - y)}; });
  return out;
}

Tensor relu(const Tensor& x) {
  ops::check_defined(x, "relu");
  Tensor out = compute(OpId::relu, x, false);
  ops::record("relu", {x}, out, [x](const Grads& g) {
    if (!is_floating(x.dtype())) return Grads{g[0] * mask_as(gt(x, scalar_like(0.0, x)), g[0])};
    return Grads{ops::relu_grad(g[0], x)};  // one fused pass
  });
  return out;
}

Tensor clamp(const Tensor& x, double lo, double hi) {
  ops::check_defined(x, "clamp");
  EXADNN_CHECK(lo <= hi, "clamp", "lower bound ", lo, " exceeds upper bound ", hi);
  Tensor out = compute(OpId::clamp, x, false, {lo, hi});
  ops::record("clamp", {x}, out, [x, lo, hi](const Grads& g) {
    const Tensor inside =
        mask_as(ge(x, scalar_like(lo, x)), g[0]) * mask_as(le(x, scalar_like(hi, x)), g[0]);
    return Grads{g[0] * inside};
  });
  return out;
}

Tensor pow(const Tensor& x, double exponent) {
  ops::check_defined(x, "pow");
  const Tensor in = input_of(x, true);
  Tensor out = compute(OpId::pow_scalar, in, true, {exponent, 0.0});
  ops::record("pow", {in}, out, [in, exponent](const Grads& g) {
    if (exponent == 0.0) return Grads{zeros_like(g[0])};
    return Grads{g[0] * exponent * pow(in, exponent - 1.0)};
  });
  return out;
}

}  // namespace exadnn
