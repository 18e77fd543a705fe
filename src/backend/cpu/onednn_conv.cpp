// Convolution through oneDNN (f32, bf16): forward, backward data, backward weights (+ bias).
// bf16 convolutions take bf16 tensors (bias and gradients included) and sum in f32 inside oneDNN
// (AVX512-BF16 `vdpbf16ps` kernels on this CPU).
//
// exadnn tensors are plain NCHW / OIHW. Each primitive is created once per problem (geometry,
// bias, pass) and cached with the reorders between the plain layout and the layout the primitive
// prefers (format_tag::any lets oneDNN pick its blocked layouts, whose JIT kernels are much
// faster than the plain-layout GEMM-based ones); see resolve() for the choice.
#include <cstdlib>
#include <cstring>
#include <string>

#include "nn_impl.h"
#include "onednn_context.h"
#include "onednn_conv_dims.h"

namespace exadnn::cpu::onednn {

namespace {

enum class Pass : uint8_t { forward, backward_data, backward_weights };

// How activations (x, out and their gradients) are handed to the primitives.
enum class ActLayout : uint8_t {
  plain,     // nchw as stored: no reorders
  blocked,   // any: oneDNN's choice (nChw16c on AVX-512), reordered in and out
  nhwc,      // channels last, reordered in and out
  winograd,  // oneDNN's choice of layout, with the Winograd algorithm
};

}  // namespace

bool winograd_enabled() {
  static const bool enabled = [] {
    const char* env = std::getenv("EXADNN_CONV_WINOGRAD");
    return env == nullptr || std::strcmp(env, "0") != 0;
  }();
  return enabled;
}

namespace {

// The problems the Winograd route takes: oneDNN's F(4x4, 3x3) kernels need a 3x3 stride-1
// undilated dense convolution; below 64 channels in or out its transforms cost more than they
// save, and the tests' small convolutions stay on the direct kernels (Winograd rounds
// differently: its transforms add ~1e-6 relative error in f32). EXADNN_CONV_WINOGRAD=0 turns
// the route off.
bool winograd_takes(const Conv2dGeometry& g) {
  return winograd_enabled() && g.kh == 3 && g.kw == 3 && g.stride_h == 1 && g.stride_w == 1 &&
         g.dilation_h == 1 && g.dilation_w == 1 && g.groups == 1 && g.c >= 64 && g.o >= 64;
}

dnnl::algorithm algorithm_of(ActLayout l) {
  return l == ActLayout::winograd ? dnnl::algorithm::convolution_winograd
                                  : dnnl::algorithm::convolution_direct;
}

// EXADNN_ONEDNN_LAYOUT=plain|blocked|nhwc forces one layout for every pass (for measuring);
// unset or "auto" means the choice below. Read once.
ConvLayout forced_layout() {
  static const ConvLayout forced = [] {
    const char* env = std::getenv("EXADNN_ONEDNN_LAYOUT");
    if (env == nullptr) return ConvLayout::automatic;
    if (std::strcmp(env, "plain") == 0) return ConvLayout::plain;
    if (std::strcmp(env, "blocked") == 0) return ConvLayout::blocked;
    if (std::strcmp(env, "nhwc") == 0) return ConvLayout::nhwc;
    return ConvLayout::automatic;
  }();
  return forced;
}

// oneDNN 2.6's channels-last backward-weights kernel for a strided 1x1 convolution with input
// channels not a multiple of 16 (jit_1x1:avx512_core) writes up to ~4 KB past its scratchpad
// when the batch is odd and two or more threads share it (its gradient is right; the heap is
// not). Measured with a guarded scratchpad over batches 1-32, 1-64 channels, strides 1-3:
// only stride > 1, kernel 1x1, channels below 16 (tests/backend/conv_tuning_test.cpp).
bool nhwc_backward_weights_overruns(const Conv2dGeometry& g, Pass pass) {
  return pass == Pass::backward_weights && g.kh == 1 && g.kw == 1 &&
         (g.stride_h > 1 || g.stride_w > 1) && g.c % 16 != 0;
}

// The layout of a call: the one it asked for, else the forced one, else the rule. The rule was
// measured with bench/conv_bench.cpp (figures in src/backend/README.md): oneDNN's JIT kernels on
// its own layouts, reorders included, beat its plain-layout (GEMM-based) ones by 1.5-5x in every
// pass of the CNN's layers. Blocked (nChw16c) is best overall; channels-last is ~15% faster for
// the forward pass once there are enough input channels (oneDNN's brgconv kernels); backward data
// with very few input channels (a first layer's input gradient) is 5x faster plain.
ActLayout resolve(ConvLayout requested, const Conv2dGeometry& g, Pass pass) {
  if (requested == ConvLayout::automatic) requested = forced_layout();
  switch (requested) {
    case ConvLayout::plain:
      return ActLayout::plain;
    case ConvLayout::blocked:
      return ActLayout::blocked;
    case ConvLayout::nhwc:  // blocked where oneDNN's channels-last kernel overruns its buffer
      return nhwc_backward_weights_overruns(g, pass) ? ActLayout::blocked : ActLayout::nhwc;
    case ConvLayout::winograd:
      EXADNN_CHECK(winograd_takes(g), "conv2d",
                   "the Winograd route takes 3x3 stride-1 convolutions of 64 or more channels");
      return ActLayout::winograd;
    default:
      break;
  }
  if (pass == Pass::backward_data && g.groups == 1 && g.c < 8) return ActLayout::plain;
  if (pass == Pass::forward && g.groups == 1 && g.c >= 16) return ActLayout::nhwc;
  return ActLayout::blocked;
}

tag act_tag(ActLayout l) {
  switch (l) {
    case ActLayout::plain:
      return tag::nchw;
    case ActLayout::nhwc:
      return tag::nhwc;
    default:
      return tag::any;
  }
}

struct Key {
  Conv2dGeometry g;
  memory::data_type dt;
  bool bias;
  Pass pass;
  ActLayout layout;
  bool operator==(const Key&) const = default;
};

struct KeyHash {
  size_t operator()(const Key& k) const {
    const Conv2dGeometry& g = k.g;
    return hash_ints({g.n,
                      g.c,
                      g.h,
                      g.w,
                      g.o,
                      g.kh,
                      g.kw,
                      g.oh,
                      g.ow,
                      g.stride_h,
                      g.stride_w,
                      g.pad_h,
                      g.pad_w,
                      g.dilation_h,
                      g.dilation_w,
                      g.groups,
                      k.bias,
                      static_cast<int64_t>(k.dt),
                      static_cast<int64_t>(k.pass),
                      static_cast<int64_t>(k.layout)});
  }
};

dnnl::convolution_forward::primitive_desc forward_pd(const Dims& d, bool bias, ActLayout l) {
  const tag act = act_tag(l);
  const auto src = d.md(d.src, act), dst = d.md(d.dst, act);
  const auto w = d.md(d.weights, tag::any);
  const auto b = bias ? d.md(d.bias, tag::x) : memory::desc();
  dnnl::convolution_forward::desc desc(dnnl::prop_kind::forward_training, algorithm_of(l), src, w,
                                       b, dst, d.strides, d.dilates, d.padding, d.padding);
  return dnnl::convolution_forward::primitive_desc(desc, attributes(), engine());
}

struct Forward {
  dnnl::convolution_forward prim;
  memory::desc scratchpad;
  Layout src, weights, dst;
  memory::desc bias;
};

struct BackwardData {
  dnnl::convolution_backward_data prim;
  memory::desc scratchpad;
  Layout diff_dst, weights, diff_src;
};

struct BackwardWeights {
  dnnl::convolution_backward_weights prim;
  memory::desc scratchpad;
  Layout diff_dst, src, diff_weights;
  memory::desc diff_bias;
};

template <class Value>
std::shared_ptr<const Value> entry(const Conv2dGeometry& g, memory::data_type dt, bool bias,
                                   Pass pass, ActLayout l);

template <>
std::shared_ptr<const Forward> entry<Forward>(const Conv2dGeometry& g, memory::data_type dt,
                                              bool bias, Pass pass, ActLayout l) {
  static PrimitiveCache<Key, Forward, KeyHash> cache;
  return cache.get(Key{g, dt, bias, pass, l}, [&] {
    const Dims d(g, dt);
    const auto pd = forward_pd(d, bias, l);
    return Forward{dnnl::convolution_forward(pd),
                   pd.scratchpad_desc(),
                   Layout(d.md(d.src, tag::nchw), pd.src_desc(), true, false),
                   Layout(d.md(d.weights, d.weights_tag), pd.weights_desc(), true, false),
                   Layout(d.md(d.dst, tag::nchw), pd.dst_desc(), false, true),
                   bias ? d.md(d.bias, tag::x) : memory::desc()};
  });
}

template <>
std::shared_ptr<const BackwardData> entry<BackwardData>(const Conv2dGeometry& g,
                                                        memory::data_type dt, bool, Pass pass,
                                                        ActLayout l) {
  static PrimitiveCache<Key, BackwardData, KeyHash> cache;
  return cache.get(Key{g, dt, false, pass, l}, [&] {
    const Dims d(g, dt);
    const tag act = act_tag(l);
    const auto hint = forward_pd(d, false, l);
    dnnl::convolution_backward_data::desc desc(algorithm_of(l), d.md(d.src, act),
                                               d.md(d.weights, tag::any), d.md(d.dst, act),
                                               d.strides, d.dilates, d.padding, d.padding);
    const dnnl::convolution_backward_data::primitive_desc pd(desc, attributes(), engine(), hint);
    return BackwardData{dnnl::convolution_backward_data(pd), pd.scratchpad_desc(),
                        Layout(d.md(d.dst, tag::nchw), pd.diff_dst_desc(), true, false),
                        Layout(d.md(d.weights, d.weights_tag), pd.weights_desc(), true, false),
                        Layout(d.md(d.src, tag::nchw), pd.diff_src_desc(), false, true)};
  });
}

template <>
std::shared_ptr<const BackwardWeights> entry<BackwardWeights>(const Conv2dGeometry& g,
                                                              memory::data_type dt, bool bias,
                                                              Pass pass, ActLayout l) {
  static PrimitiveCache<Key, BackwardWeights, KeyHash> cache;
  return cache.get(Key{g, dt, bias, pass, l}, [&] {
    const Dims d(g, dt);
    const tag act = act_tag(l);
    const auto hint = forward_pd(d, bias, l);
    const auto b = bias ? d.md(d.bias, tag::x) : memory::desc();
    dnnl::convolution_backward_weights::desc desc(algorithm_of(l), d.md(d.src, act),
                                                  d.md(d.weights, tag::any), b, d.md(d.dst, act),
                                                  d.strides, d.dilates, d.padding, d.padding);
    const dnnl::convolution_backward_weights::primitive_desc pd(desc, attributes(), engine(), hint);
    return BackwardWeights{
        dnnl::convolution_backward_weights(pd),
        pd.scratchpad_desc(),
        Layout(d.md(d.dst, tag::nchw), pd.diff_dst_desc(), true, false),
        Layout(d.md(d.src, tag::nchw), pd.src_desc(), true, false),
        Layout(d.md(d.weights, d.weights_tag), pd.diff_weights_desc(), false, true),
        b};
  });
}

}  // namespace

bool layout_forced() {
  return forced_layout() != ConvLayout::automatic;
}

void conv2d_forward(const Conv2dGeometry& g, const Tensor& out, const Tensor& x,
                    const Tensor& weight, const Tensor& bias, ConvLayout layout) {
  guarded("conv2d", [&] {
    const auto e = entry<Forward>(g, data_type_of(x.dtype()), bias.defined(), Pass::forward,
                                  resolve(layout, g, Pass::forward));
    Scratch scratch;
    const memory src = e->src.input(x, scratch), w = e->weights.input(weight, scratch);
    const memory dst = e->dst.output(out, scratch);
    std::unordered_map<int, memory> args{
        {DNNL_ARG_SRC, src}, {DNNL_ARG_WEIGHTS, w}, {DNNL_ARG_DST, dst}};
    if (bias.defined()) args.emplace(DNNL_ARG_BIAS, wrap(e->bias, bias));
    scratch.add_scratchpad(e->scratchpad, args);
    e->prim.execute(stream(), args);
    e->dst.finish(dst, out, scratch);
    stream().wait();
    scratch.check_guards("conv2d");
  });
}

void conv2d_backward_data(const Conv2dGeometry& g, const Tensor& grad_x, const Tensor& grad_out,
                          const Tensor& weight, ConvLayout layout) {
  guarded("conv2d", [&] {
    const auto e =
        entry<BackwardData>(g, data_type_of(grad_out.dtype()), false, Pass::backward_data,
                            resolve(layout, g, Pass::backward_data));
    Scratch scratch;
    const memory dd = e->diff_dst.input(grad_out, scratch);
    const memory w = e->weights.input(weight, scratch);
    const memory ds = e->diff_src.output(grad_x, scratch);
    std::unordered_map<int, memory> args{
        {DNNL_ARG_DIFF_DST, dd}, {DNNL_ARG_WEIGHTS, w}, {DNNL_ARG_DIFF_SRC, ds}};
    scratch.add_scratchpad(e->scratchpad, args);
    e->prim.execute(stream(), args);
    e->diff_src.finish(ds, grad_x, scratch);
    stream().wait();
    scratch.check_guards("conv2d");
  });
}

void conv2d_backward_weights(const Conv2dGeometry& g, const Tensor& grad_weight,
                             const Tensor& grad_bias, const Tensor& grad_out, const Tensor& x,
                             ConvLayout layout) {
  guarded("conv2d", [&] {
    const auto e =
        entry<BackwardWeights>(g, data_type_of(x.dtype()), grad_bias.defined(),
                               Pass::backward_weights, resolve(layout, g, Pass::backward_weights));
    Scratch scratch;
    const memory dd = e->diff_dst.input(grad_out, scratch);
    const memory src = e->src.input(x, scratch);
    const memory dw = e->diff_weights.output(grad_weight, scratch);
    std::unordered_map<int, memory> args{
        {DNNL_ARG_DIFF_DST, dd}, {DNNL_ARG_SRC, src}, {DNNL_ARG_DIFF_WEIGHTS, dw}};
    if (grad_bias.defined()) args.emplace(DNNL_ARG_DIFF_BIAS, wrap(e->diff_bias, grad_bias));
    scratch.add_scratchpad(e->scratchpad, args);
    e->prim.execute(stream(), args);
    e->diff_weights.finish(dw, grad_weight, scratch);
    stream().wait();
    scratch.check_guards("conv2d");
  });
}

}  // namespace exadnn::cpu::onednn
