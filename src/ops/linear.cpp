// linear: x·Wᵀ + b as one graph node, with a gradient laid out like the parameters.
#include "autocast.h"
#include "exadnn/ops/elementwise.h"
#include "exadnn/ops/linalg.h"
#include "exadnn/ops/reduction.h"
#include "internal.h"

namespace exadnn {

Tensor linear(const Tensor& x_in, const Tensor& weight_in, const Tensor& bias_in) {
  ops::check_defined(x_in, "linear", "input");
  ops::check_defined(weight_in, "linear", "weight");
  // Autocast: the operands are cast (recorded, so f32 parameters get f32 gradients).
  const Tensor x = autocast_to_16bit(x_in), weight = autocast_to_16bit(weight_in);
  const Tensor bias = autocast_to_16bit(bias_in);
  EXADNN_CHECK(weight.dim() == 2, "linear", "weight must be [out, in], got ", weight.shape());
  EXADNN_CHECK(x.dim() >= 1 && x.size(-1) == weight.size(1), "linear", "input of shape ", x.shape(),
               " does not match weight of shape ", weight.shape(), " (in = ", weight.size(1), ")");
  EXADNN_CHECK(!bias.defined() || bias.shape() == Shape{weight.size(0)}, "linear", "bias of shape ",
               bias.shape(), " does not match weight of shape ", weight.shape());
  Tensor y;
  {
    NoGradGuard no_grad;  // the node below is the only one recorded
    y = matmul(x, weight.t());
    if (bias.defined()) y = add(y, bias);
  }
  ops::record("linear", {x, weight, bias}, y, [x, weight, bias](const std::vector<Tensor>& g) {
    const int64_t in = weight.size(1), out = weight.size(0);
    const Tensor g2 = g[0].reshape({-1, out});  // [N, out]
    const Tensor x2 = x.reshape({-1, in});      // [N, in]
    return std::vector<Tensor>{
        x.requires_grad() ? matmul(g2, weight).reshape(x.shape()) : Tensor(),
        weight.requires_grad() ? matmul(g2.t(), x2) : Tensor(),  // [out, in], dense
        bias.defined() && bias.requires_grad() ? sum(g2, {0}) : Tensor()};
  });
  return y;
}

}  // namespace exadnn
