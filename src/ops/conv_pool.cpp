// conv2d_max_pool2d and conv2d_relu_max_pool2d: a convolution, the max pooling of its output
// [and a ReLU] as one graph node over the backend's fused kernels where they exist, else conv2d
// then max_pool2d [then relu].
#include "exadnn/backend/conv_algorithm.h"
#include "exadnn/backend/nn_kernels.h"
#include "exadnn/backend/precision_policy.h"
#include "exadnn/ops/conv.h"
#include "exadnn/ops/elementwise.h"
#include "exadnn/ops/pool.h"
#include "internal.h"
#include "layer_geometry.h"

namespace exadnn {

namespace {

using Grads = std::vector<Tensor>;

// Whether the fused kernels can run these operands: one f32 device with the forward kernel
// `forward` registered, batched input, no autocast (which would make the ops 16-bit), and not
// exadnn's own loops asked for by name.
bool fusable(const Tensor& x, const Tensor& weight, const Tensor& bias, OpId forward) {
  const Device device = x.device();
  for (const Tensor& t : {x, weight, bias})
    if (t.defined() && (t.dtype() != DType::f32 || t.device() != device)) return false;
  if (x.dim() != 4 || precision::autocast_dtype() != DType::f32) return false;
  if (conv_algorithm() == ConvAlgorithm::im2col) return false;
  return KernelRegistry::instance().find(forward, device.kind, DType::f32) != nullptr;
}

// An uninitialised [N, C, H, W] tensor in `format`.
Tensor empty_in(const Shape& nchw, MemoryFormat format, Device device) {
  return format == MemoryFormat::channels_last ? ops::empty_channels_last(nchw, DType::f32, device)
                                               : ops::empty_on(nchw, DType::f32, device);
}

MemoryFormat format_of(const Tensor& t) {
  return t.is_contiguous() ? MemoryFormat::contiguous : MemoryFormat::channels_last;
}

// The node, with a ReLU after the pooling when `relu`.
Tensor conv_max_pool_node(const Tensor& x, const Tensor& weight, const Tensor& bias,
                          const Conv2dParams& params, Size2 pool_kernel, Size2 pool_stride,
                          Size2 pool_padding, MemoryFormat out_format, bool relu) {
  const char* op = relu ? "conv2d_relu_max_pool2d" : "conv2d_max_pool2d";
  const auto unfused = [&] {
    const Tensor pooled =
        max_pool2d(conv2d(x, weight, bias, params), pool_kernel, pool_stride, pool_padding);
    return relu ? exadnn::relu(pooled) : pooled;
  };
  const OpId forward = relu ? OpId::conv2d_relu_max_pool_forward : OpId::conv2d_max_pool_forward;
  if (!x.defined() || !weight.defined() || !fusable(x, weight, bias, forward)) return unfused();
  const Conv2dGeometry conv = ops::conv2d_geometry(x.shape(), weight.shape(), params);
  EXADNN_CHECK(!bias.defined() || bias.shape() == Shape{conv.o}, op, "bias must have shape [",
               conv.o, "] (the output channels of weight ", weight.shape(), "), got ",
               bias.shape());
  const Pool2dGeometry pool =
      ops::pool2d_geometry({conv.n, conv.o, conv.oh, conv.ow}, PoolKind::max, pool_kernel,
                           pool_stride, pool_padding, op);
  if (conv.n * conv.c * conv.h * conv.w == 0 || pool.oh * pool.ow == 0) return unfused();

  const Device device = x.device();
  // x is read contiguous or channels-last as it comes; any other layout is packed first.
  const Tensor xd = is_channels_last(x) ? x.detach() : x.detach().contiguous();
  const Tensor wd = weight.detach().contiguous();
  const Tensor bd = bias.defined() ? bias.detach().contiguous() : Tensor();
  const MemoryFormat x_format = format_of(xd);
  Tensor out = empty_in({pool.n, pool.c, pool.oh, pool.ow}, out_format, device);
  out_format = format_of(out);  // contiguous where the two coincide (one channel, 1x1 maps)
  ConvMaxPoolSaved saved = lookup<Conv2dMaxPoolForwardKernel>(forward, device.kind, DType::f32)(
      conv, pool, out, xd, wd, bd);
  if (relu) saved.relu_output = out.detach();  // the ReLU's output, without its node
  const bool need_x = x.requires_grad(), need_w = weight.requires_grad();
  const bool need_b = bias.defined() && bias.requires_grad();
  ops::record(op, {x, weight, bias}, out,
              [conv, pool, device, need_x, need_w, need_b, saved, wd, x_format,
               out_format](const Grads& grads) {
                Grads result(3);
                if (need_x)
                  result[0] = empty_in({conv.n, conv.c, conv.h, conv.w}, x_format, device);
                if (need_w) result[1] = ops::empty_on(wd.shape(), DType::f32, device);
                if (need_b) result[2] = ops::empty_on({conv.o}, DType::f32, device);
                lookup<Conv2dMaxPoolBackwardKernel>(OpId::conv2d_max_pool_backward, device.kind,
                                                    DType::f32)(
                    conv, pool, result[0], result[1], result[2],
                    ops::in_format(grads[0], out_format), wd, saved);
                return result;
              });
  return out;
}

}  // namespace

Tensor conv2d_max_pool2d(const Tensor& x, const Tensor& weight, const Tensor& bias,
                         const Conv2dParams& params, Size2 pool_kernel, Size2 pool_stride,
                         Size2 pool_padding, MemoryFormat out_format) {
  return conv_max_pool_node(x, weight, bias, params, pool_kernel, pool_stride, pool_padding,
                            out_format, false);
}

Tensor conv2d_relu_max_pool2d(const Tensor& x, const Tensor& weight, const Tensor& bias,
                              const Conv2dParams& params, Size2 pool_kernel, Size2 pool_stride,
                              Size2 pool_padding, MemoryFormat out_format) {
  return conv_max_pool_node(x, weight, bias, params, pool_kernel, pool_stride, pool_padding,
                            out_format, true);
}

}  // namespace exadnn
