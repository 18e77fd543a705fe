// The implementations behind the CPU layer kernels (internal to the CPU backend): oneDNN (f32;
// convolutions also bf16) and exadnn's own loops (f32, f64; pooling also f16, bf16).
// nn_kernels.cpp registers them and picks one per call.
#pragma once

#include "exadnn/backend/dispatch.h"
#include "exadnn/backend/kernels.h"
#include "exadnn/backend/nn_kernels.h"

namespace exadnn::cpu {

namespace onednn {
/// The layout a convolution's activations are handed to oneDNN in: `automatic` is the fixed
/// rule of onednn_conv.cpp (or EXADNN_ONEDNN_LAYOUT); the others force one (measured routes).
/// `winograd` is the blocked layout with oneDNN's Winograd algorithm instead of the direct one
/// (an Error for a problem it does not take: see winograd_takes).
enum class ConvLayout : uint8_t { automatic, plain, blocked, nhwc, winograd };
/// True when EXADNN_ONEDNN_LAYOUT forces one layout for every convolution (for measuring).
bool layout_forced();
/// False when EXADNN_CONV_WINOGRAD=0 takes the Winograd route out (read once per process).
bool winograd_enabled();
/// Convolutions of f32 or bf16 tensors (every tensor argument of one dtype).
void conv2d_forward(const Conv2dGeometry& g, const Tensor& out, const Tensor& x,
                    const Tensor& weight, const Tensor& bias,
                    ConvLayout layout = ConvLayout::automatic);
void conv2d_backward_data(const Conv2dGeometry& g, const Tensor& grad_x, const Tensor& grad_out,
                          const Tensor& weight, ConvLayout layout = ConvLayout::automatic);
void conv2d_backward_weights(const Conv2dGeometry& g, const Tensor& grad_weight,
                             const Tensor& grad_bias, const Tensor& grad_out, const Tensor& x,
                             ConvLayout layout = ConvLayout::automatic);
/// Max-pooling workspaces are u8 tensors of oneDNN's workspace bytes.
Tensor pool2d_forward(const Pool2dGeometry& g, const Tensor& out, const Tensor& x, bool training);
void pool2d_backward(const Pool2dGeometry& g, const Tensor& grad_x, const Tensor& grad_out,
                     const Tensor& workspace);
/// True when oneDNN runs this pooling (adaptive pooling only when the windows tile evenly).
bool supports(const Pool2dGeometry& g);
/// Convolution + max pooling in one step, f32 (onednn_conv_pool.cpp); `relu`: max(0, ·) of the
/// pooled values (conv2d_relu_max_pool_forward).
ConvMaxPoolSaved conv2d_max_pool_forward(const Conv2dGeometry& conv, const Pool2dGeometry& pool,
                                         const Tensor& out, const Tensor& x, const Tensor& weight,
                                         const Tensor& bias, bool relu);
void conv2d_max_pool_backward(const Conv2dGeometry& conv, const Pool2dGeometry& pool,
                              const Tensor& grad_x, const Tensor& grad_weight,
                              const Tensor& grad_bias, const Tensor& grad_out, const Tensor& weight,
                              const ConvMaxPoolSaved& saved);
void batch_norm_forward(const BatchNormGeometry& g, const Tensor& y, const Tensor& x,
                        const Tensor& scale, const Tensor& shift, const Tensor& mean,
                        const Tensor& var);
void batch_norm_backward(const BatchNormGeometry& g, const Tensor& grad_x, const Tensor& grad_scale,
                         const Tensor& grad_shift, const Tensor& grad_y, const Tensor& x,
                         const Tensor& scale, const Tensor& mean, const Tensor& var);
}  // namespace onednn

// exadnn's own loops, instantiated for float and double (pooling also for Half and BFloat16).
namespace native {
template <class T>
void conv2d_forward(const Conv2dGeometry& g, const Tensor& out, const Tensor& x,
                    const Tensor& weight, const Tensor& bias);
template <class T>
void conv2d_backward_data(const Conv2dGeometry& g, const Tensor& grad_x, const Tensor& grad_out,
                          const Tensor& weight);
template <class T>
void conv2d_backward_weights(const Conv2dGeometry& g, const Tensor& grad_weight,
                             const Tensor& grad_bias, const Tensor& grad_out, const Tensor& x);
/// out [n, o, oh, ow] += bias [o] per channel.
template <class T>
void add_channel_bias(const Conv2dGeometry& g, const Tensor& out, const Tensor& bias);
/// Max-pooling workspaces are i32 tensors [n, c, oh, ow]: the index into each input plane.
template <class T>
Tensor pool2d_forward(const Pool2dGeometry& g, const Tensor& out, const Tensor& x, bool training);
template <class T>
void pool2d_backward(const Pool2dGeometry& g, const Tensor& grad_x, const Tensor& grad_out,
                     const Tensor& workspace);
/// Max pooling 2x2, stride 2, no padding (the CNN's), which exadnn's loop does faster than
/// oneDNN's pooling on NCHW tensors.
bool is_max_pool_2x2(const Pool2dGeometry& g);
/// Max pooling 3x3, stride 2, padding 1 of even-width planes (ResNet's stem): exadnn's vectorised
/// plane loop
/// (native_max_pool_3x3.cpp), which with exadnn's backward beats oneDNN's pooling on NCHW.
bool is_max_pool_3x3_s2(const Pool2dGeometry& g);
/// One [h, w] plane of it (f32, f64): dst [oh, ow] and, when ws is not null, ws [oh, ow] (the
/// flat index in the plane of each maximum, as the generic loop writes it).
template <class T>
void max_pool_3x3_s2_plane(const Pool2dGeometry& g, const T* src, T* dst, int32_t* ws);
/// Convolution + 2x2 max pooling (stride 2) for layers with few input channels, f32
/// (native_conv_pool.cpp): true for the problems it takes (groups 1, stride 1, no dilation, at
/// most 4 input channels, output channels a multiple of the vector width (16 with AVX-512, 8 with
/// AVX2), kernel width <= 7, the pooling 2x2, stride 2, no padding).
bool conv_pool_fits(const Conv2dGeometry& conv, const Pool2dGeometry& pool);
/// Whether this CPU runs exadnn's conv + pool loop at all (it is built for AVX-512 and for AVX2
/// with FMA).
bool conv_pool_loop_runs_here();
/// Its forward (`relu`: max(0, ·) of the pooled values) and backward (the Conv2dMaxPool kernels'
/// contract, nn_kernels.h). Its workspace is an i32 tensor [n, ph, pw, o] (oneDNN's is u8 bytes):
/// conv_pool_wrote tells which path wrote it.
ConvMaxPoolSaved conv2d_max_pool_forward(const Conv2dGeometry& conv, const Pool2dGeometry& pool,
                                         const Tensor& out, const Tensor& x, const Tensor& weight,
                                         const Tensor& bias, bool relu);
Conv2dMaxPoolBackwardKernel conv2d_max_pool_backward;
bool conv_pool_wrote(const ConvMaxPoolSaved& saved);
/// Max pooling 2x2, stride 2, no padding (is_max_pool_2x2) of channels-last f32 memory
/// [g.n, g.h, g.w, g.c] into dst [g.n, g.oh, g.ow, g.c], codes the same shape: each maximum's
/// position in its window, 0..3 row-major (native_max_pool_nhwc.cpp; onednn_conv_pool.cpp's
/// pooling when its convolution runs channels-last). The backward overwrites grad_src whole.
void max_pool_2x2_nhwc(const Pool2dGeometry& g, const float* src, float* dst, uint8_t* codes);
void max_pool_2x2_nhwc_backward(const Pool2dGeometry& g, const float* grad, const uint8_t* codes,
                                float* grad_src);
/// The backward passes of a channels-last f32 convolution by im2col + GEMM
/// (nhwc_im2col_conv.cpp; a measured route of onednn_conv_pool.cpp): x [n, h, w, c], grad_out
/// [n, oh, ow, o], grad_x [n, h, w, c] (overwritten), weight and grad_weight OIHW; grad_weight
/// or grad_bias [o] may be null (not wanted). Groups 1 only (nhwc_im2col_takes; else an Error).
bool nhwc_im2col_takes(const Conv2dGeometry& g);
void conv2d_backward_weights_nhwc(const Conv2dGeometry& g, const float* x, const float* grad_out,
                                  float* grad_weight, float* grad_bias);
void conv2d_backward_data_nhwc(const Conv2dGeometry& g, const float* grad_out, const float* weight,
                               float* grad_x);
/// relu: y = max(0, ·) (batch_norm_relu_forward).
template <class T>
void batch_norm_forward(const BatchNormGeometry& g, const Tensor& y, const Tensor& x,
                        const Tensor& scale, const Tensor& shift, const Tensor& mean,
                        const Tensor& var, bool relu = false);
/// relu_output defined: the forward's max(0, ·) output, grad_y counts only where it is > 0
/// (batch_norm_relu_backward).
template <class T>
void batch_norm_backward(const BatchNormGeometry& g, const Tensor& grad_x, const Tensor& grad_scale,
                         const Tensor& grad_shift, const Tensor& grad_y, const Tensor& x,
                         const Tensor& scale, const Tensor& mean, const Tensor& var,
                         const Tensor& relu_output = Tensor());
}  // namespace native

/// Dense f32 convolutions of images with fewer pixels than the kernel has taps (H·W < KH·KW,
/// e.g. ResNet's 3x3 convolutions on 2x2 maps) as one GEMM against the convolution's dense
/// matrix (dense_conv.cpp; the measured route ConvRoute::dense). An Error when the problem is
/// not of that kind (groups, or as many pixels as taps: then the dense matrix costs more).
namespace dense {
bool applies(const Conv2dGeometry& g);
void conv2d_forward(const Conv2dGeometry& g, const Tensor& out, const Tensor& x,
                    const Tensor& weight, const Tensor& bias);
void conv2d_backward_data(const Conv2dGeometry& g, const Tensor& grad_x, const Tensor& grad_out,
                          const Tensor& weight);
void conv2d_backward_weights(const Conv2dGeometry& g, const Tensor& grad_weight,
                             const Tensor& grad_bias, const Tensor& grad_out, const Tensor& x);
}  // namespace dense

/// A dense scratch tensor of `dtype` from the MemoryManager (no autograd, uninitialised).
Tensor scratch_tensor(const Shape& shape, DType dtype);

/// c [m, n] = op(a) · op(b) + beta · c through the registered CPU GEMM of T (row-major; op
/// transposes when ta / tb).
template <class T>
void gemm(bool ta, bool tb, int64_t m, int64_t n, int64_t k, const T* a, int64_t lda, const T* b,
          int64_t ldb, double beta, T* c, int64_t ldc) {
  const GemmArgs args{.trans_a = ta,
                      .trans_b = tb,
                      .m = m,
                      .n = n,
                      .k = k,
                      .a = a,
                      .lda = lda,
                      .b = b,
                      .ldb = ldb,
                      .beta = beta,
                      .c = c,
                      .ldc = ldc};
  lookup<GemmKernel>(OpId::gemm, DeviceKind::cpu, dtype_v<T>)(args);
}

}  // namespace exadnn::cpu
