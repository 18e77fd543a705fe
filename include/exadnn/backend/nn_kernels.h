// Signatures of the layer kernels (linear, conv, pooling, batch norm, softmax); the op ids are
// listed in nn_ops.def. Tensors are NCHW, dense (contiguous) and of the registered dtype unless a
// comment says otherwise; outputs are allocated by the op. See src/backend/README.md for the
// contract.
#pragma once

#include <cstdint>

#include "exadnn/core/tensor.h"

namespace exadnn {

// ---- linear layer --------------------------------------------------------------------------

/// What a fused linear forward applies to x·Wᵀ + b before writing it.
enum class LinearActivation { none, relu };

/// y [n, out] = act(x [n, in] · weight [out, in]ᵀ + bias [out]); bias may be undefined. All
/// dense. An optional kernel: where a backend registers none, linear() runs gemm, add and relu.
using LinearForwardKernel = void(const Tensor& y, const Tensor& x, const Tensor& weight,
                                 const Tensor& bias, LinearActivation act);

// ---- convolution ----------------------------------------------------------------------------

/// Every size of a 2-D convolution: x [n, c, h, w] * weight [o, c / groups, kh, kw]
/// -> out [n, o, oh, ow], with oh = (h + 2 pad_h - dilation_h (kh - 1) - 1) / stride_h + 1.
struct Conv2dGeometry {
  int64_t n = 0, c = 0, h = 0, w = 0;
  int64_t o = 0, kh = 0, kw = 0;
  int64_t oh = 0, ow = 0;
  int64_t stride_h = 1, stride_w = 1;
  int64_t pad_h = 0, pad_w = 0;
  int64_t dilation_h = 1, dilation_w = 1;  // 1 = no dilation
  int64_t groups = 1;
  bool operator==(const Conv2dGeometry&) const = default;
};

/// out = conv(x, weight) + bias; bias [o] may be undefined.
using Conv2dForwardKernel = void(const Conv2dGeometry& g, const Tensor& out, const Tensor& x,
                                 const Tensor& weight, const Tensor& bias);
/// grad_x [n, c, h, w] = gradient of the convolution w.r.t. its input (overwritten).
using Conv2dBackwardDataKernel = void(const Conv2dGeometry& g, const Tensor& grad_x,
                                      const Tensor& grad_out, const Tensor& weight);
/// grad_weight [o, c / groups, kh, kw] and grad_bias [o] (may be undefined: not wanted), both
/// overwritten, from grad_out [n, o, oh, ow] and the forward's input x.
using Conv2dBackwardWeightsKernel = void(const Conv2dGeometry& g, const Tensor& grad_weight,
                                         const Tensor& grad_bias, const Tensor& grad_out,
                                         const Tensor& x);

// ---- pooling --------------------------------------------------------------------------------

enum class PoolKind : uint8_t {
  max,              ///< padding never wins (it counts as -inf)
  avg_include_pad,  ///< divide by kh * kw (window clipped to the padded input)
  avg_exclude_pad,  ///< divide by the number of real input elements in the window
  adaptive_avg,     ///< window i covers [floor(i h / oh), ceil((i + 1) h / oh)); kernel, stride
                    ///< and padding are unused
};

/// Every size of a 2-D pooling: x [n, c, h, w] -> out [n, c, oh, ow].
struct Pool2dGeometry {
  PoolKind kind = PoolKind::max;
  int64_t n = 0, c = 0, h = 0, w = 0;
  int64_t oh = 0, ow = 0;
  int64_t kh = 1, kw = 1;
  int64_t stride_h = 1, stride_w = 1;
  int64_t pad_h = 0, pad_w = 0;
  bool operator==(const Pool2dGeometry&) const = default;
};

/// out = pool(x). When `training` and the kind is max, returns the workspace the backward kernel
/// needs (where each maximum came from, in a backend-chosen format; the backward kernel reads its
/// dtype to know which of its paths wrote it), else an undefined tensor.
using Pool2dForwardKernel = Tensor(const Pool2dGeometry& g, const Tensor& out, const Tensor& x,
                                   bool training);
/// grad_x [n, c, h, w] (overwritten) from grad_out [n, c, oh, ow] and, for max, the forward's
/// workspace.
using Pool2dBackwardKernel = void(const Pool2dGeometry& g, const Tensor& grad_x,
                                  const Tensor& grad_out, const Tensor& workspace);

// ---- convolution + max pooling ---------------------------------------------------------------

/// What a fused convolution + max pooling forward keeps for its backward, in backend-chosen
/// layouts: the input as the convolution read it, where each maximum came from, whether the
/// forward added a bias, and the memory formats of x and out (the backward's primitives must be
/// the forward's). relu_output is set by the op, not the kernel, after a
/// conv2d_relu_max_pool_forward: its out (the ReLU's output) without its graph node; the backward
/// then passes gradient only where it is > 0.
struct ConvMaxPoolSaved {
  Tensor input;
  Tensor workspace;
  bool bias = false;
  bool x_channels_last = false, out_channels_last = false;
  Tensor relu_output;
};

/// out [n, o, ph, pw] = max_pool(conv(x, weight) + bias): `conv` the convolution's geometry,
/// `pool` the max pooling's over its output [n, o, oh, ow], which is never written to a tensor.
/// bias may be undefined. x and out are each contiguous or channels-last (memory_format.h); the
/// backward's grad_x has x's format and grad_out out's. An optional kernel: where a backend
/// registers none, the op runs conv2d then max_pool2d. conv2d_relu_max_pool_forward has the same
/// signature and writes max(0, ·) of it (= max_pool(relu(conv(x) + bias)), ReLU being monotone),
/// also optional: without it, the op runs the fused node and a ReLU.
using Conv2dMaxPoolForwardKernel = ConvMaxPoolSaved(const Conv2dGeometry& conv,
                                                    const Pool2dGeometry& pool, const Tensor& out,
                                                    const Tensor& x, const Tensor& weight,
                                                    const Tensor& bias);
/// The gradients from grad_out [n, o, ph, pw]: grad_x [n, c, h, w], grad_weight and grad_bias
/// [o] (only when the forward had a bias), each overwritten, each undefined when not wanted.
/// After the ReLU variant (saved.relu_output defined), grad_out counts only where the forward's
/// output is > 0.
using Conv2dMaxPoolBackwardKernel = void(const Conv2dGeometry& conv, const Pool2dGeometry& pool,
                                         const Tensor& grad_x, const Tensor& grad_weight,
                                         const Tensor& grad_bias, const Tensor& grad_out,
                                         const Tensor& weight, const ConvMaxPoolSaved& saved);

// ---- batch normalisation --------------------------------------------------------------------

/// x viewed as [n, c, spatial]; statistics per channel over n and spatial.
struct BatchNormGeometry {
  int64_t n = 0, c = 0, spatial = 1;
  double eps = 1e-5;
  /// true: normalise with the batch statistics; false: with the given mean/var.
  bool training = true;
  bool operator==(const BatchNormGeometry&) const = default;
};

/// y = (x - mean) / sqrt(var + eps) * scale + shift, per channel. scale and shift [c] may be
/// undefined (1 and 0). mean/var [c] have x's dtype: outputs when training (the batch mean and
/// the biased batch variance), inputs otherwise.
using BatchNormForwardKernel = void(const BatchNormGeometry& g, const Tensor& y, const Tensor& x,
                                    const Tensor& scale, const Tensor& shift, const Tensor& mean,
                                    const Tensor& var);
/// Gradients of the forward with the same geometry: grad_x (always) and grad_scale, grad_shift
/// [c] (each may be undefined: not wanted), overwritten. mean/var are what the forward used.
/// In training mode the statistics depend on x; otherwise they are constants.
using BatchNormBackwardKernel = void(const BatchNormGeometry& g, const Tensor& grad_x,
                                     const Tensor& grad_scale, const Tensor& grad_shift,
                                     const Tensor& grad_y, const Tensor& x, const Tensor& scale,
                                     const Tensor& mean, const Tensor& var);
/// batch_norm_relu_forward has BatchNormForwardKernel's signature and writes max(0, y). Its
/// backward also takes that output y (the ReLU's mask: grad_y counts where y > 0). Optional for a
/// backend: without them, batch_norm_relu runs batch norm and a ReLU.
using BatchNormReluBackwardKernel = void(const BatchNormGeometry& g, const Tensor& grad_x,
                                         const Tensor& grad_scale, const Tensor& grad_shift,
                                         const Tensor& grad_y, const Tensor& x, const Tensor& y,
                                         const Tensor& scale, const Tensor& mean,
                                         const Tensor& var);

// ---- softmax --------------------------------------------------------------------------------

/// x viewed as [outer, axis, inner]; softmax over the middle axis. `log` selects log_softmax.
struct SoftmaxGeometry {
  int64_t outer = 1, axis = 1, inner = 1;
  bool log = false;
};

/// out = softmax(x) or log_softmax(x).
using SoftmaxForwardKernel = void(const SoftmaxGeometry& g, const Tensor& out, const Tensor& x);
/// grad_x from grad_out and the forward's output out: softmax: out (grad_out - sum(grad_out out));
/// log_softmax: grad_out - exp(out) sum(grad_out).
using SoftmaxBackwardKernel = void(const SoftmaxGeometry& g, const Tensor& grad_x,
                                   const Tensor& grad_out, const Tensor& out);

// ---- softmax cross-entropy against class indices -------------------------------------------

/// loss [n] = lse [n] - logits [n, target [n]], with lse [n] = log Σ_c exp(logits [n, c])
/// computed stably (the row's maximum subtracted first), for logits [n, c] and target [n] (i64,
/// dense). A target outside [0, c) is an Error naming it and its example; NaN in a row gives
/// NaN. An optional kernel: where a backend registers none, softmax_cross_entropy() composes
/// logits - logsumexp, a one-hot pick and a sum.
using CrossEntropyForwardKernel = void(const Tensor& loss, const Tensor& lse, const Tensor& logits,
                                       const Tensor& target);
/// grad_logits [n, c] = grad_loss [n] (exp(logits [n, c] - lse [n]) - [c == target [n]]), from
/// the forward's logits, lse and (already checked) target.
using CrossEntropyBackwardKernel = void(const Tensor& grad_logits, const Tensor& grad_loss,
                                        const Tensor& logits, const Tensor& lse,
                                        const Tensor& target);

}  // namespace exadnn
