// Registers the CPU layer kernels. f32 goes to oneDNN or to exadnn's own loops per call, as
// conv_algorithm() says (f32 convolutions under `fastest`: the route measured for the problem,
// conv_tuning.h); f64 always to exadnn's loops (oneDNN has no f64); f16 and bf16 as said above
// conv_widened().
#include "exadnn/backend/nn_kernels.h"
#include "conv_tuning.h"
#include "exadnn/backend/conv_algorithm.h"
#include "exadnn/core/half.h"
#include "loops.h"
#include "nn_impl.h"
#include "onednn_context.h"
#include "widen_f32.h"

namespace exadnn::cpu {

void register_softmax_kernels(KernelRegistry& r);
void register_cross_entropy_kernels(KernelRegistry& r);

namespace {

bool use_onednn() {
  return conv_algorithm() != ConvAlgorithm::im2col;
}

// f32 batch norm runs oneDNN only when asked for by name (ConvAlgorithm::onednn): its
// plain-layout kernels synchronise their threads inside each channel and ran 1.3-10x slower than
// exadnn's channel-parallel loops on ResNet-18's shapes (docs/performance.md, "Batch norm").
bool onednn_batch_norm() {
  return conv_algorithm() == ConvAlgorithm::onednn;
}

// f32 convolutions take the measured route unless EXADNN_ONEDNN_LAYOUT forces a layout.
bool measured_routes() {
  return conv_algorithm() == ConvAlgorithm::fastest && !onednn::layout_forced();
}

onednn::ConvLayout layout_of(ConvRoute route) {
  switch (route) {
    case ConvRoute::onednn_plain:
      return onednn::ConvLayout::plain;
    case ConvRoute::onednn_nhwc:
      return onednn::ConvLayout::nhwc;
    case ConvRoute::onednn_winograd:
      return onednn::ConvLayout::winograd;
    default:
      return onednn::ConvLayout::blocked;
  }
}

// Runs one f32 convolution pass by its measured route; run(route) computes it by that route.
void run_measured(const Conv2dGeometry& g, bool bias, ConvPass pass,
                  const std::function<void(ConvRoute)>& run) {
  run(tuned_conv_route(g, bias, pass, run));
}

// Empty tensors go to exadnn's loops, which handle them (oneDNN wants e.g. a workspace that an
// empty max pooling does not have).
bool empty(const Pool2dGeometry& g) {
  return g.n * g.c * g.h * g.w == 0;
}
bool empty(const BatchNormGeometry& g) {
  return g.n * g.c * g.spatial == 0;
}

// How a 16-bit layer kernel runs: bf16 convolutions in oneDNN (its AVX512-BF16 kernels); f16
// ones (oneDNN 2.6 has no f16 convolution on CPUs), bf16 ones on the im2col path or on a CPU
// without oneDNN's bf16 kernels (AVX2: onednn::has_bf16_kernels) and 16-bit batch
// norm widened to f32 (widen_f32.h); 16-bit pooling in exadnn's loops.
template <class T>
constexpr bool is_half_type = std::is_same_v<T, Half> || std::is_same_v<T, BFloat16>;

template <class T>
bool conv_widened() {
  return std::is_same_v<T, Half> ||
         (std::is_same_v<T, BFloat16> && (!use_onednn() || !onednn::has_bf16_kernels()));
}

template <class T>
void conv2d_forward(const Conv2dGeometry& g, const Tensor& out, const Tensor& x,
                    const Tensor& weight, const Tensor& bias) {
  if constexpr (is_half_type<T>) {
    if (!conv_widened<T>()) return onednn::conv2d_forward(g, out, x, weight, bias);
    const Tensor wide_out = f32_output(out);
    conv2d_forward<float>(g, wide_out, widen(x), widen(weight), widen(bias));
    narrow_into(wide_out, out);
  } else {
    if constexpr (std::is_same_v<T, float>) {
      if (measured_routes())
        return run_measured(g, bias.defined(), ConvPass::forward, [&](ConvRoute r) {
          if (r == ConvRoute::im2col) return native::conv2d_forward<T>(g, out, x, weight, bias);
          if (r == ConvRoute::dense) return dense::conv2d_forward(g, out, x, weight, bias);
          onednn::conv2d_forward(g, out, x, weight, bias, layout_of(r));
        });
      if (use_onednn()) return onednn::conv2d_forward(g, out, x, weight, bias);
    }
    native::conv2d_forward<T>(g, out, x, weight, bias);
  }
}

template <class T>
void conv2d_backward_data(const Conv2dGeometry& g, const Tensor& grad_x, const Tensor& grad_out,
                          const Tensor& weight) {
  if constexpr (is_half_type<T>) {
    if (!conv_widened<T>()) return onednn::conv2d_backward_data(g, grad_x, grad_out, weight);
    const Tensor wide_gx = f32_output(grad_x);
    conv2d_backward_data<float>(g, wide_gx, widen(grad_out), widen(weight));
    narrow_into(wide_gx, grad_x);
  } else {
    if constexpr (std::is_same_v<T, float>) {
      if (measured_routes())
        return run_measured(g, false, ConvPass::backward_data, [&](ConvRoute r) {
          if (r == ConvRoute::im2col)
            return native::conv2d_backward_data<T>(g, grad_x, grad_out, weight);
          if (r == ConvRoute::dense)
            return dense::conv2d_backward_data(g, grad_x, grad_out, weight);
          onednn::conv2d_backward_data(g, grad_x, grad_out, weight, layout_of(r));
        });
      if (use_onednn()) return onednn::conv2d_backward_data(g, grad_x, grad_out, weight);
    }
    native::conv2d_backward_data<T>(g, grad_x, grad_out, weight);
  }
}

template <class T>
void conv2d_backward_weights(const Conv2dGeometry& g, const Tensor& grad_weight,
                             const Tensor& grad_bias, const Tensor& grad_out, const Tensor& x) {
  if constexpr (is_half_type<T>) {
    if (!conv_widened<T>())
      return onednn::conv2d_backward_weights(g, grad_weight, grad_bias, grad_out, x);
    const Tensor wide_gw = f32_output(grad_weight), wide_gb = f32_output(grad_bias);
    conv2d_backward_weights<float>(g, wide_gw, wide_gb, widen(grad_out), widen(x));
    narrow_into(wide_gw, grad_weight);
    narrow_into(wide_gb, grad_bias);
  } else {
    if constexpr (std::is_same_v<T, float>) {
      if (measured_routes())
        return run_measured(g, grad_bias.defined(), ConvPass::backward_weights, [&](ConvRoute r) {
          if (r == ConvRoute::im2col)
            return native::conv2d_backward_weights<T>(g, grad_weight, grad_bias, grad_out, x);
          if (r == ConvRoute::dense)
            return dense::conv2d_backward_weights(g, grad_weight, grad_bias, grad_out, x);
          onednn::conv2d_backward_weights(g, grad_weight, grad_bias, grad_out, x, layout_of(r));
        });
      if (use_onednn())
        return onednn::conv2d_backward_weights(g, grad_weight, grad_bias, grad_out, x);
    }
    native::conv2d_backward_weights<T>(g, grad_weight, grad_bias, grad_out, x);
  }
}

// 2x2 and 3x3/2 (ResNet's stem) max pooling take exadnn's loops on both paths: on NCHW tensors
// they are faster than oneDNN's.
template <class T>
Tensor pool2d_forward(const Pool2dGeometry& g, const Tensor& out, const Tensor& x, bool training) {
  if constexpr (std::is_same_v<T, float>)
    if (use_onednn() && onednn::supports(g) && !empty(g) && !native::is_max_pool_2x2(g) &&
        !native::is_max_pool_3x3_s2(g))
      return onednn::pool2d_forward(g, out, x, training);
  return native::pool2d_forward<T>(g, out, x, training);
}

// Max pooling follows the path that wrote the workspace (u8: oneDNN, i32: exadnn's), so a
// switch of algorithm between forward and backward is harmless.
template <class T>
void pool2d_backward(const Pool2dGeometry& g, const Tensor& grad_x, const Tensor& grad_out,
                     const Tensor& workspace) {
  if constexpr (std::is_same_v<T, float>) {
    const bool onednn_path = g.kind == PoolKind::max
                                 ? workspace.defined() && workspace.dtype() == DType::u8
                                 : use_onednn() && onednn::supports(g) && !empty(g);
    if (onednn_path) return onednn::pool2d_backward(g, grad_x, grad_out, workspace);
  }
  native::pool2d_backward<T>(g, grad_x, grad_out, workspace);
}

// Convolution + max pooling: exadnn's direct loop for few input channels and 2x2 pooling (the
// oneDNN step spends most of such a layer's time on memory passes), unless oneDNN is asked for
// by name; oneDNN in the convolution's layout otherwise; Relu: max(0, ·) of the pooled values
// (conv2d_relu_max_pool_forward). The backward follows the path that wrote the workspace.
template <bool Relu>
ConvMaxPoolSaved conv2d_max_pool_forward(const Conv2dGeometry& conv, const Pool2dGeometry& pool,
                                         const Tensor& out, const Tensor& x, const Tensor& weight,
                                         const Tensor& bias) {
  if (conv_algorithm() == ConvAlgorithm::fastest && native::conv_pool_fits(conv, pool))
    return native::conv2d_max_pool_forward(conv, pool, out, x, weight, bias, Relu);
  return onednn::conv2d_max_pool_forward(conv, pool, out, x, weight, bias, Relu);
}

void conv2d_max_pool_backward(const Conv2dGeometry& conv, const Pool2dGeometry& pool,
                              const Tensor& grad_x, const Tensor& grad_weight,
                              const Tensor& grad_bias, const Tensor& grad_out, const Tensor& weight,
                              const ConvMaxPoolSaved& saved) {
  if (native::conv_pool_wrote(saved))
    return native::conv2d_max_pool_backward(conv, pool, grad_x, grad_weight, grad_bias, grad_out,
                                            weight, saved);
  onednn::conv2d_max_pool_backward(conv, pool, grad_x, grad_weight, grad_bias, grad_out, weight,
                                   saved);
}

template <class T>
void batch_norm_forward(const BatchNormGeometry& g, const Tensor& y, const Tensor& x,
                        const Tensor& scale, const Tensor& shift, const Tensor& mean,
                        const Tensor& var) {
  if constexpr (is_half_type<T>) {
    // mean/var are outputs when training, inputs otherwise.
    const Tensor wide_y = f32_output(y);
    const Tensor wide_mean = g.training ? f32_output(mean) : widen(mean);
    const Tensor wide_var = g.training ? f32_output(var) : widen(var);
    batch_norm_forward<float>(g, wide_y, widen(x), widen(scale), widen(shift), wide_mean, wide_var);
    narrow_into(wide_y, y);
    if (g.training) {
      narrow_into(wide_mean, mean);
      narrow_into(wide_var, var);
    }
  } else {
    if constexpr (std::is_same_v<T, float>)
      if (onednn_batch_norm() && !empty(g))
        return onednn::batch_norm_forward(g, y, x, scale, shift, mean, var);
    native::batch_norm_forward<T>(g, y, x, scale, shift, mean, var);
  }
}

template <class T>
void batch_norm_backward(const BatchNormGeometry& g, const Tensor& grad_x, const Tensor& grad_scale,
                         const Tensor& grad_shift, const Tensor& grad_y, const Tensor& x,
                         const Tensor& scale, const Tensor& mean, const Tensor& var) {
  if constexpr (is_half_type<T>) {
    const Tensor wide_gx = f32_output(grad_x), wide_gscale = f32_output(grad_scale),
                 wide_gshift = f32_output(grad_shift);
    batch_norm_backward<float>(g, wide_gx, wide_gscale, wide_gshift, widen(grad_y), widen(x),
                               widen(scale), widen(mean), widen(var));
    narrow_into(wide_gx, grad_x);
    narrow_into(wide_gscale, grad_scale);
    narrow_into(wide_gshift, grad_shift);
  } else {
    if constexpr (std::is_same_v<T, float>)
      if (onednn_batch_norm() && !empty(g))
        return onednn::batch_norm_backward(g, grad_x, grad_scale, grad_shift, grad_y, x, scale,
                                           mean, var);
    native::batch_norm_backward<T>(g, grad_x, grad_scale, grad_shift, grad_y, x, scale, mean, var);
  }
}

// Batch norm and a ReLU in one pass each way: exadnn's loops (f32, f64).
template <class T>
void batch_norm_relu_forward(const BatchNormGeometry& g, const Tensor& y, const Tensor& x,
                             const Tensor& scale, const Tensor& shift, const Tensor& mean,
                             const Tensor& var) {
  native::batch_norm_forward<T>(g, y, x, scale, shift, mean, var, /*relu=*/true);
}

template <class T>
void batch_norm_relu_backward(const BatchNormGeometry& g, const Tensor& grad_x,
                              const Tensor& grad_scale, const Tensor& grad_shift,
                              const Tensor& grad_y, const Tensor& x, const Tensor& y,
                              const Tensor& scale, const Tensor& mean, const Tensor& var) {
  native::batch_norm_backward<T>(g, grad_x, grad_scale, grad_shift, grad_y, x, scale, mean, var, y);
}

template <class T>
void register_dtype(KernelRegistry& r, DType t) {
  put<Conv2dForwardKernel>(r, OpId::conv2d_forward, t, &conv2d_forward<T>);
  put<Conv2dBackwardDataKernel>(r, OpId::conv2d_backward_data, t, &conv2d_backward_data<T>);
  put<Conv2dBackwardWeightsKernel>(r, OpId::conv2d_backward_weights, t,
                                   &conv2d_backward_weights<T>);
  put<Pool2dForwardKernel>(r, OpId::pool2d_forward, t, &pool2d_forward<T>);
  put<Pool2dBackwardKernel>(r, OpId::pool2d_backward, t, &pool2d_backward<T>);
  put<BatchNormForwardKernel>(r, OpId::batch_norm_forward, t, &batch_norm_forward<T>);
  put<BatchNormBackwardKernel>(r, OpId::batch_norm_backward, t, &batch_norm_backward<T>);
}

}  // namespace

void register_nn_kernels(KernelRegistry& r) {
  register_dtype<float>(r, DType::f32);
  register_dtype<double>(r, DType::f64);
  register_dtype<BFloat16>(r, DType::bf16);
  register_dtype<Half>(r, DType::f16);
  put<BatchNormForwardKernel>(r, OpId::batch_norm_relu_forward, DType::f32,
                              &batch_norm_relu_forward<float>);
  put<BatchNormForwardKernel>(r, OpId::batch_norm_relu_forward, DType::f64,
                              &batch_norm_relu_forward<double>);
  put<BatchNormReluBackwardKernel>(r, OpId::batch_norm_relu_backward, DType::f32,
                                   &batch_norm_relu_backward<float>);
  put<BatchNormReluBackwardKernel>(r, OpId::batch_norm_relu_backward, DType::f64,
                                   &batch_norm_relu_backward<double>);
  put<Conv2dMaxPoolForwardKernel>(r, OpId::conv2d_max_pool_forward, DType::f32,
                                  &conv2d_max_pool_forward<false>);
  put<Conv2dMaxPoolForwardKernel>(r, OpId::conv2d_relu_max_pool_forward, DType::f32,
                                  &conv2d_max_pool_forward<true>);
  put<Conv2dMaxPoolBackwardKernel>(r, OpId::conv2d_max_pool_backward, DType::f32,
                                   &conv2d_max_pool_backward);
  register_softmax_kernels(r);
  register_cross_entropy_kernels(r);
}

}  // namespace exadnn::cpu
