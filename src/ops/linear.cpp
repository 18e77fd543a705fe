// linear: act(x·Wᵀ + b) as one graph node, with a gradient laid out like the parameters. The
// forward runs the backend's fused linear_forward kernel where it has one (CPU f32: one oneDNN
// matmul with the bias and the ReLU as post-ops), else gemm, add and relu.
#include "autocast.h"
#include "exadnn/backend/nn_kernels.h"
#include "exadnn/ops/elementwise.h"
#include "exadnn/ops/linalg.h"
#include "exadnn/ops/reduction.h"
#include "internal.h"

namespace exadnn {

namespace {

// y [..., out] through the backend's fused kernel, or undefined where none applies: no kernel for
// the device and dtype, operands of different dtypes or devices, or f32 products asked for at a
// precision other than fp32 (the kernel computes in fp32; matmul honours the others).
Tensor fused_forward(const Tensor& x, const Tensor& weight, const Tensor& bias,
                     LinearActivation act) {
  const DType dt = x.dtype();
  const Device device = x.device();
  if (weight.dtype() != dt || weight.device() != device) return Tensor();
  if (bias.defined() && (bias.dtype() != dt || bias.device() != device)) return Tensor();
  if (dt == DType::f32 && matmul_precision() != MatmulPrecision::fp32) return Tensor();
  const AnyKernel kernel = KernelRegistry::instance().find(OpId::linear_forward, device.kind, dt);
  if (kernel == nullptr) return Tensor();
  const int64_t in = weight.size(1), out = weight.size(0);
  const Tensor x2 = x.reshape({-1, in}).contiguous();  // [N, in]
  Tensor y = ops::empty_on({x2.size(0), out}, dt, device);
  reinterpret_cast<LinearForwardKernel*>(kernel)(
      y, x2, weight.contiguous(), bias.defined() ? bias.contiguous() : Tensor(), act);
  Shape shape = x.shape();
  shape[shape.size() - 1] = out;
  return y.reshape(shape);
}

Tensor linear_with(const Tensor& x_in, const Tensor& weight_in, const Tensor& bias_in,
                   LinearActivation act, const char* name) {
  ops::check_defined(x_in, name, "input");
  ops::check_defined(weight_in, name, "weight");
  // Autocast: the operands are cast (recorded, so f32 parameters get f32 gradients).
  const Tensor x = autocast_to_16bit(x_in), weight = autocast_to_16bit(weight_in);
  const Tensor bias = autocast_to_16bit(bias_in);
  EXADNN_CHECK(weight.dim() == 2, name, "weight must be [out, in], got ", weight.shape());
  EXADNN_CHECK(x.dim() >= 1 && x.size(-1) == weight.size(1), name, "input of shape ", x.shape(),
               " does not match weight of shape ", weight.shape(), " (in = ", weight.size(1), ")");
  EXADNN_CHECK(!bias.defined() || bias.shape() == Shape{weight.size(0)}, name, "bias of shape ",
               bias.shape(), " does not match weight of shape ", weight.shape());
  Tensor y;
  {
    NoGradGuard no_grad;  // the node below is the only one recorded
    y = fused_forward(x, weight, bias, act);
    if (!y.defined()) {
      y = matmul(x, weight.t());
      if (bias.defined()) y = add(y, bias);
      if (act == LinearActivation::relu) y = relu(y);
    }
  }
  const Tensor saved_y = act == LinearActivation::relu ? y.detach() : Tensor();
  ops::record(name, {x, weight, bias}, y, [x, weight, bias, saved_y](const std::vector<Tensor>& g) {
    const int64_t in = weight.size(1), out = weight.size(0);
    Tensor g2 = g[0].reshape({-1, out});  // [N, out], the gradient of act's output
    if (saved_y.defined()) {  // through the ReLU: kept where y > 0 (⇔ x·Wᵀ + b > 0)
      const Tensor y2 = saved_y.reshape({-1, out});
      Tensor masked = ops::empty_on(y2.shape(), y2.dtype(), y2.device());
      lookup<BinaryKernel>(OpId::relu_backward, y2.device().kind, y2.dtype())(
          masked, ops::broadcast_view(g2.to(y2.dtype()), y2.shape()), y2);
      g2 = masked;
    }
    const Tensor x2 = x.reshape({-1, in});  // [N, in]
    return std::vector<Tensor>{
        x.requires_grad() ? matmul(g2, weight).reshape(x.shape()) : Tensor(),
        weight.requires_grad() ? matmul(g2.t(), x2) : Tensor(),  // [out, in], dense
        bias.defined() && bias.requires_grad() ? sum(g2, {0}) : Tensor()};
  });
  return y;
}

}  // namespace

Tensor linear(const Tensor& x, const Tensor& weight, const Tensor& bias) {
  return linear_with(x, weight, bias, LinearActivation::none, "linear");
}

Tensor linear_relu(const Tensor& x, const Tensor& weight, const Tensor& bias) {
  return linear_with(x, weight, bias, LinearActivation::relu, "linear_relu");
}

}  // namespace exadnn
