// A convolution's input gradient as oneDNN's forward convolution over the output gradient with
// the kernels transposed and turned (see onednn_transposed_data.h).
#include "onednn_transposed_data.h"

#include <cstring>

#include "loops.h"
#include "nn_impl.h"

namespace exadnn::cpu::onednn {

bool transposed_data_takes(const Conv2dGeometry& g) {
  return g.groups == 1 && g.stride_h == 1 && g.stride_w == 1 && g.dilation_h == 1 &&
         g.dilation_w == 1 && g.pad_h < g.kh && g.pad_w < g.kw && g.oh > 0 && g.ow > 0;
}

bool TransposedData::brgconv() const {
  return implementation.rfind("brg", 0) == 0;
}

TransposedData make_transposed_data(const Conv2dGeometry& g) {
  EXADNN_CHECK(transposed_data_takes(g), "conv2d",
               "backward data as a forward convolution needs stride 1, no dilation, one group "
               "and padding below the kernel's size");
  const memory::data_type f32 = memory::data_type::f32;
  const memory::desc dy = make_desc({g.n, g.o, g.oh, g.ow}, f32, tag::nhwc);
  const memory::desc dx = make_desc({g.n, g.c, g.h, g.w}, f32, tag::nhwc);
  const memory::dims turned{g.c, g.o, g.kh, g.kw};
  // The far side's padding makes the output H x W: OH + left + right - KH + 1 = H.
  const memory::dims left{g.kh - 1 - g.pad_h, g.kw - 1 - g.pad_w};
  const memory::dims right{g.h - 1 + g.kh - g.oh - left[0], g.w - 1 + g.kw - g.ow - left[1]};
  const dnnl::convolution_forward::primitive_desc pd(
      dnnl::convolution_forward::desc(
          dnnl::prop_kind::forward_inference, dnnl::algorithm::convolution_direct, dy,
          make_desc(turned, f32, tag::any), memory::desc(), dx, {1, 1}, {0, 0}, left, right),
      attributes(), engine());
  return TransposedData{dnnl::convolution_forward(pd),
                        pd.scratchpad_desc(),
                        dy,
                        dx,
                        Layout(make_desc(turned, f32, tag::oihw), pd.weights_desc(), true, false),
                        pd.impl_info_str()};
}

namespace {

// turned[c, o, i, j] = w[o, c, KH - 1 - i, KW - 1 - j]; w is OIHW [O, C, KH, KW].
void turn_kernels(const Conv2dGeometry& g, const float* w, float* turned) {
  const int64_t taps = g.kh * g.kw;
#pragma omp parallel for schedule(static) if (g.o * g.c * taps >= kParallelGrain)
  for (int64_t c = 0; c < g.c; ++c)
    for (int64_t o = 0; o < g.o; ++o) {
      const float* from = w + (o * g.c + c) * taps;
      float* to = turned + (c * g.o + o) * taps;
      for (int64_t t = 0; t < taps; ++t) to[t] = from[taps - 1 - t];
    }
}

}  // namespace

void run_transposed_data(const Conv2dGeometry& g, const TransposedData& t, const memory& diff_dst,
                         const Tensor& weight, const memory& diff_src, Scratch& scratch) {
  const Tensor turned = scratch_tensor({g.c, g.o, g.kh, g.kw}, DType::f32);
  turn_kernels(g, weight.data<float>(), turned.data<float>());
  std::unordered_map<int, memory> args{{DNNL_ARG_SRC, diff_dst},
                                       {DNNL_ARG_WEIGHTS, t.weights.input(turned, scratch)},
                                       {DNNL_ARG_DST, diff_src}};
  scratch.add_scratchpad(t.scratchpad, args);
  t.prim.execute(stream(), args);
  stream().wait();  // the turned kernels (`turned`, or its reordered copy) are read until here
}

}  // namespace exadnn::cpu::onednn
