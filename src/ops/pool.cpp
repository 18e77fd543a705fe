// max_pool2d, avg_pool2d and adaptive_avg_pool2d over the dispatched pooling kernels, and their
// gradients (max pooling keeps the forward kernel's workspace for its backward).
#include "exadnn/ops/pool.h"

#include "exadnn/backend/nn_kernels.h"
#include "internal.h"
#include "layer_geometry.h"

namespace exadnn {

namespace {

using Grads = std::vector<Tensor>;

// Validates x ([N, C, H, W], or [C, H, W] as a batch of one) and fills the input sizes of g.
void input_sizes(const Shape& x, Pool2dGeometry& g, const char* op) {
  const int64_t dim = static_cast<int64_t>(x.size());
  EXADNN_CHECK(dim == 4 || dim == 3, op,
               "input must be 4-D [N, C, H, W] or 3-D [C, H, W], got shape ", x);
  const int64_t lead = dim - 3;
  g.n = lead ? x[0] : 1;
  g.c = x[lead];
  g.h = x[lead + 1];
  g.w = x[lead + 2];
}

}  // namespace

Pool2dGeometry ops::pool2d_geometry(const Shape& x, PoolKind kind, Size2 kernel, Size2 stride,
                                    Size2 padding, const char* op) {
  Pool2dGeometry g;
  g.kind = kind;
  input_sizes(x, g, op);
  EXADNN_CHECK(kernel.h >= 1 && kernel.w >= 1, op, "kernel must be at least 1, got ", kernel);
  EXADNN_CHECK(stride.h >= 1 && stride.w >= 1, op, "stride must be at least 1, got ", stride);
  EXADNN_CHECK(
      padding.h >= 0 && padding.w >= 0 && 2 * padding.h <= kernel.h && 2 * padding.w <= kernel.w,
      op, "padding must be between 0 and half the kernel ", kernel, ", got ", padding);
  EXADNN_CHECK(kernel.h <= g.h + 2 * padding.h && kernel.w <= g.w + 2 * padding.w, op, "kernel ",
               kernel, " is larger than the input ", x, " padded by ", padding);
  g.kh = kernel.h;
  g.kw = kernel.w;
  g.stride_h = stride.h;
  g.stride_w = stride.w;
  g.pad_h = padding.h;
  g.pad_w = padding.w;
  g.oh = (g.h + 2 * g.pad_h - g.kh) / g.stride_h + 1;
  g.ow = (g.w + 2 * g.pad_w - g.kw) / g.stride_w + 1;
  return g;
}

namespace {

Tensor pool(const Tensor& x, const Pool2dGeometry& g, const char* op) {
  const Device device = x.device();
  const DType dtype = x.dtype();
  const bool batched = x.dim() == 4;
  Tensor out = ops::empty_on({g.n, g.c, g.oh, g.ow}, dtype, device);
  const bool training = GradMode::is_enabled() && x.requires_grad();
  const Tensor workspace = lookup<Pool2dForwardKernel>(OpId::pool2d_forward, device.kind, dtype)(
      g, out, x.detach().contiguous(), training);
  ops::record(op, {x}, out, [g, device, dtype, workspace, shape = x.shape()](const Grads& grads) {
    Tensor gx = ops::empty_on({g.n, g.c, g.h, g.w}, dtype, device);
    lookup<Pool2dBackwardKernel>(OpId::pool2d_backward, device.kind, dtype)(
        g, gx, grads[0].contiguous().reshape({g.n, g.c, g.oh, g.ow}), workspace);
    return Grads{gx.reshape(shape)};
  });
  return batched ? out : out.reshape({g.c, g.oh, g.ow});
}

}  // namespace

Tensor max_pool2d(const Tensor& x, Size2 kernel, Size2 stride, Size2 padding) {
  ops::check_defined(x, "max_pool2d");
  return pool(x,
              ops::pool2d_geometry(x.shape(), PoolKind::max, kernel, stride, padding, "max_pool2d"),
              "max_pool2d");
}

Tensor max_pool2d(const Tensor& x, Size2 kernel) {
  return max_pool2d(x, kernel, kernel, 0);
}

Tensor avg_pool2d(const Tensor& x, Size2 kernel, Size2 stride, Size2 padding,
                  bool count_include_pad) {
  const PoolKind kind = count_include_pad ? PoolKind::avg_include_pad : PoolKind::avg_exclude_pad;
  ops::check_defined(x, "avg_pool2d");
  return pool(x, ops::pool2d_geometry(x.shape(), kind, kernel, stride, padding, "avg_pool2d"),
              "avg_pool2d");
}

Tensor avg_pool2d(const Tensor& x, Size2 kernel) {
  return avg_pool2d(x, kernel, kernel, 0, true);
}

Tensor adaptive_avg_pool2d(const Tensor& x, int64_t out_h, int64_t out_w) {
  const char* op = "adaptive_avg_pool2d";
  Pool2dGeometry g;
  g.kind = PoolKind::adaptive_avg;
  ops::check_defined(x, op);
  input_sizes(x.shape(), g, op);
  EXADNN_CHECK(out_h >= 1 && out_w >= 1, op, "output size must be at least 1x1, got ", out_h, "x",
               out_w);
  EXADNN_CHECK(g.h >= 1 && g.w >= 1, op, "input ", x.shape(), " has an empty plane");
  g.oh = out_h;
  g.ow = out_w;
  return pool(x, g, op);
}

}  // namespace exadnn
