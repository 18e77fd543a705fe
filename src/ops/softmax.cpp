// softmax and log_softmax over the dispatched fused kernels, and their gradients (from the saved
// output).
#include "exadnn/ops/softmax.h"

#include "autocast.h"
#include "exadnn/backend/nn_kernels.h"
#include "internal.h"

namespace exadnn {

namespace {

using Grads = std::vector<Tensor>;

Tensor softmax_impl(const Tensor& x0, int64_t axis, bool log, const char* op) {
  ops::check_defined(x0, op);
  const Tensor xa = autocast_to_f32(x0);  // autocast keeps softmax in f32
  const Tensor x = xa.to(ops::floating_dtype(xa.dtype()));
  SoftmaxGeometry g;
  g.log = log;
  if (x.dim() == 0) {
    check_scalar_axis(axis, op);
  } else {
    axis = normalize_axis(axis, x.dim(), op);
    for (int64_t d = 0; d < axis; ++d) g.outer *= x.shape()[d];
    g.axis = x.shape()[axis];
    for (int64_t d = axis + 1; d < x.dim(); ++d) g.inner *= x.shape()[d];
  }
  const Device device = x.device();
  const DType dtype = x.dtype();
  Tensor out = ops::empty_on(x.shape(), dtype, device);
  lookup<SoftmaxForwardKernel>(OpId::softmax_forward, device.kind, dtype)(g, out,
                                                                          x.detach().contiguous());
  ops::record(op, {x}, out, [g, device, dtype, saved = out.detach()](const Grads& grads) {
    Tensor gx = ops::empty_on(saved.shape(), dtype, device);
    lookup<SoftmaxBackwardKernel>(OpId::softmax_backward, device.kind, dtype)(
        g, gx, grads[0].contiguous(), saved);
    return Grads{gx};
  });
  return out;
}

}  // namespace

Tensor softmax(const Tensor& x, int64_t axis) {
  return softmax_impl(x, axis, false, "softmax");
}

Tensor log_softmax(const Tensor& x, int64_t axis) {
  return softmax_impl(x, axis, true, "log_softmax");
}

}  // namespace exadnn
