// conv2d over the dispatched convolution kernels, and its gradient (backward data for the input,
// backward weights for weight and bias).
#include "exadnn/ops/conv.h"

#include "autocast.h"
#include "exadnn/backend/nn_kernels.h"
#include "exadnn/backend/precision_policy.h"
#include "exadnn/ops/reduction.h"
#include "internal.h"
#include "layer_geometry.h"

namespace exadnn {

namespace {

using Grads = std::vector<Tensor>;

}  // namespace

Conv2dGeometry ops::conv2d_geometry(const Shape& x, const Shape& w, const Conv2dParams& p) {
  const char* op = "conv2d";
  EXADNN_CHECK(x.size() == 4, op, "input must be 4-D [N, C, H, W], got shape ", x);
  EXADNN_CHECK(w.size() == 4, op, "weight must be 4-D [O, C / groups, KH, KW], got shape ", w);
  EXADNN_CHECK(p.groups >= 1, op, "groups must be at least 1, got ", p.groups);
  EXADNN_CHECK(p.stride.h >= 1 && p.stride.w >= 1, op, "stride must be at least 1, got ", p.stride);
  EXADNN_CHECK(p.dilation.h >= 1 && p.dilation.w >= 1, op, "dilation must be at least 1, got ",
               p.dilation);
  EXADNN_CHECK(p.padding.h >= 0 && p.padding.w >= 0, op, "padding must not be negative, got ",
               p.padding);
  EXADNN_CHECK(x[1] % p.groups == 0, op, "input ", x, " has ", x[1],
               " channels, which do not divide into ", p.groups, " groups");
  EXADNN_CHECK(w[0] % p.groups == 0, op, "weight ", w, " has ", w[0],
               " output channels, which do not divide into ", p.groups, " groups");
  EXADNN_CHECK(w[1] * p.groups == x[1], op, "input ", x, " has ", x[1], " channels but weight ", w,
               " expects ", w[1] * p.groups,
               p.groups == 1 ? std::string()
                             : detail::cat(" (", w[1], " per group x ", p.groups, " groups)"));
  Conv2dGeometry g;
  g.n = x[0];
  g.c = x[1];
  g.h = x[2];
  g.w = x[3];
  g.o = w[0];
  g.kh = w[2];
  g.kw = w[3];
  g.stride_h = p.stride.h;
  g.stride_w = p.stride.w;
  g.pad_h = p.padding.h;
  g.pad_w = p.padding.w;
  g.dilation_h = p.dilation.h;
  g.dilation_w = p.dilation.w;
  g.groups = p.groups;
  const int64_t eff_h = p.dilation.h * (g.kh - 1) + 1, eff_w = p.dilation.w * (g.kw - 1) + 1;
  EXADNN_CHECK(g.kh >= 1 && g.kw >= 1 && eff_h <= g.h + 2 * g.pad_h && eff_w <= g.w + 2 * g.pad_w,
               op, "kernel of weight ", w, " (", eff_h, "x", eff_w,
               " with dilation) does not fit the input ", x, " padded by ", p.padding);
  g.oh = (g.h + 2 * g.pad_h - eff_h) / g.stride_h + 1;
  g.ow = (g.w + 2 * g.pad_w - eff_w) / g.stride_w + 1;
  return g;
}

namespace {

// t as a dense tensor without autograd (t itself when already dense).
Tensor dense(const Tensor& t) {
  return t.defined() ? t.detach().contiguous() : Tensor();
}

}  // namespace

// conv2d on operands of one dtype (after autocast).
static Tensor conv2d_impl(const Tensor& x, const Tensor& weight, const Tensor& bias,
                          const Conv2dParams& params);

Shape conv2d_output_shape(const Shape& x, const Shape& weight, const Conv2dParams& params) {
  const Conv2dGeometry g = ops::conv2d_geometry(x, weight, params);
  return {g.n, g.o, g.oh, g.ow};
}

Tensor conv2d(const Tensor& x, const Tensor& weight, const Tensor& bias,
              const Conv2dParams& params) {
  // Autocast: 16-bit where the backend has a 16-bit convolution, else f32.
  const DType dt = precision::autocast_dtype();
  if (dt == DType::f32 || !x.defined()) return conv2d_impl(x, weight, bias, params);
  const bool has_16bit =
      KernelRegistry::instance().find(OpId::conv2d_forward, x.device().kind, dt) != nullptr;
  auto cast = has_16bit ? autocast_to_16bit : autocast_to_f32;
  return conv2d_impl(cast(x), cast(weight), cast(bias), params);
}

static Tensor conv2d_impl(const Tensor& x, const Tensor& weight, const Tensor& bias,
                          const Conv2dParams& params) {
  ops::check_defined(x, "conv2d", "input");
  ops::check_defined(weight, "conv2d", "weight");
  const Conv2dGeometry g = ops::conv2d_geometry(x.shape(), weight.shape(), params);
  ops::check_same_device(x, weight, "conv2d");
  EXADNN_CHECK(x.dtype() == weight.dtype(), "conv2d",
               "input and weight dtypes differ: ", dtype_name(x.dtype()), " and ",
               dtype_name(weight.dtype()));
  if (bias.defined()) {
    ops::check_same_device(x, bias, "conv2d");
    EXADNN_CHECK(bias.shape() == Shape{g.o}, "conv2d", "bias must have shape [", g.o,
                 "] (the output channels of weight ", weight.shape(), "), got ", bias.shape());
    EXADNN_CHECK(bias.dtype() == x.dtype(), "conv2d", "bias dtype ", dtype_name(bias.dtype()),
                 " differs from the input's ", dtype_name(x.dtype()));
  }
  const Device device = x.device();
  const DType dtype = x.dtype();
  const Tensor xd = dense(x), wd = dense(weight);
  Tensor out = ops::empty_on({g.n, g.o, g.oh, g.ow}, dtype, device);
  lookup<Conv2dForwardKernel>(OpId::conv2d_forward, device.kind, dtype)(g, out, xd, wd,
                                                                        dense(bias));
  const bool need_x = x.requires_grad(), need_w = weight.requires_grad();
  const bool need_b = bias.defined() && bias.requires_grad();
  // Keep only what the gradients need: the weight for the input's, the input for the weight's.
  ops::record("conv2d", {x, weight, bias}, out,
              [g, device, dtype, need_x, need_w, need_b, saved_x = need_w ? xd : Tensor(),
               saved_w = need_x ? wd : Tensor()](const Grads& grads) {
                const Tensor go = grads[0].contiguous();
                Grads result(3);
                if (need_x) {
                  result[0] = ops::empty_on({g.n, g.c, g.h, g.w}, dtype, device);
                  lookup<Conv2dBackwardDataKernel>(OpId::conv2d_backward_data, device.kind, dtype)(
                      g, result[0], go, saved_w);
                }
                if (need_w) {
                  result[1] = ops::empty_on({g.o, g.c / g.groups, g.kh, g.kw}, dtype, device);
                  if (need_b) result[2] = ops::empty_on({g.o}, dtype, device);
                  lookup<Conv2dBackwardWeightsKernel>(OpId::conv2d_backward_weights, device.kind,
                                                      dtype)(g, result[1], result[2], go, saved_x);
                } else if (need_b) {
                  result[2] = sum(go, {0, 2, 3});
                }
                return result;
              });
  return out;
}

}  // namespace exadnn
