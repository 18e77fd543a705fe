// A convolution followed by max pooling as one step through oneDNN (f32), in the layout oneDNN
// picks for the convolution (nChw16c, or channels-last from 16 input channels), so that only the
// pooled tensor (a quarter of the convolution's output for 2x2 pooling) travels between that
// layout and exadnn's NCHW:
//   forward   x -> [reorder] -> conv (+bias) -> conv_out -> max pool -> [reorder] -> out
//   backward  grad_out -> [reorder] -> max pool backward -> grad_conv -> conv backward weights
//                                                                    -> conv backward data
//                                                                       -> [reorder] -> grad_x
// conv_out and grad_conv live in scratch memory for one call; the input is kept as the
// convolution read it (for the weights' gradient, no second reorder) with the pooling's workspace.
// When the convolution runs channels-last and the pooling is 2x2 of stride 2 (a CNN's conv2),
// exadnn's channels-last pooling loop (native_max_pool_nhwc.cpp) replaces oneDNN's pooling
// primitives, with its own workspace (u8 window positions): the plan says which, for the forward
// and the backward alike.
// Under ConvAlgorithm::fastest, a channels-last stride-1 problem computes grad_x as a forward
// convolution over grad_conv with the kernels transposed and turned, where oneDNN runs that by its
// brgconv kernels (onednn_transposed_data.h; the CNN's conv2 node, forward + backward, 1.08x).
// Under ConvAlgorithm::fastest, a channels-last plan also measures, per backward pass, exadnn's
// im2col + GEMM against oneDNN (nhwc_im2col_conv.cpp: on AVX2, oneDNN runs a CNN's conv2
// backward passes at 55-60 % of the GEMM's rate) and keeps the faster (conv_tuning.h, under the
// step's own wisdom key "conv2d_max_pool2d").
// x and out (and their gradients) may be channels-last tensors instead of NCHW ones: a reorder
// at the edge disappears where that is the layout the primitive works in (conv2 of a CNN reads
// conv1's pooled output without one when conv1's node wrote it channels-last).

#include <optional>

#include "conv_tuning.h"
#include "exadnn/backend/conv_algorithm.h"
#include "nn_impl.h"
#include "onednn_context.h"
#include "onednn_conv_dims.h"
#include "onednn_transposed_data.h"

namespace exadnn::cpu::onednn {

namespace {

struct Key {
  Conv2dGeometry conv;
  Pool2dGeometry pool;
  bool bias;
  bool x_nhwc, out_nhwc;  // x (and grad_x), out (and grad_out) channels-last, else NCHW
  bool measured;          // ConvAlgorithm::fastest: grad_x as a forward convolution where it runs
                          // by brgconv, and the backward passes' routes measured
  bool operator==(const Key&) const = default;
};

struct KeyHash {
  size_t operator()(const Key& k) const {
    const Conv2dGeometry& c = k.conv;
    const Pool2dGeometry& p = k.pool;
    return hash_ints({c.n,          c.c,        c.h,        c.w,      c.o,        c.kh,
                      c.kw,         c.stride_h, c.stride_w, c.pad_h,  c.pad_w,    c.dilation_h,
                      c.dilation_w, c.groups,   p.kh,       p.kw,     p.stride_h, p.stride_w,
                      p.pad_h,      p.pad_w,    k.bias,     k.x_nhwc, k.out_nhwc, k.measured});
  }
};

// Every primitive of one problem, the layouts they agreed on and the reorders at the edges.
struct Plan {
  bool native_pool;    // exadnn's channels-last loop instead of the pooling primitives (unset)
  bool im2col_routes;  // the backward passes may run exadnn's channels-last im2col + GEMM
  dnnl::convolution_forward conv_forward;
  dnnl::pooling_forward pool_forward;
  dnnl::pooling_backward pool_backward;
  dnnl::convolution_backward_weights conv_weights;
  dnnl::convolution_backward_data conv_data;  // unset when transposed_data is set
  std::optional<TransposedData> transposed_data;
  memory::desc conv_out, workspace, bias;  // conv_out: the convolution's output (and gradient)
  memory::desc scratch_conv_forward, scratch_pool_forward, scratch_pool_backward,
      scratch_conv_weights, scratch_conv_data;
  Layout x;             // the input (NCHW or NHWC) -> the convolution's source layout
  Layout weights;       // OIHW -> the forward's weights layout
  Layout pooled;        // the pooling's output layout -> out (NCHW or NHWC)
  Layout grad_pooled;   // grad_out (out's layout) -> the pooling backward's layout
  Layout grad_weights;  // the weights gradient's layout -> OIHW
  Layout data_weights;  // OIHW -> backward data's weights layout
  Layout grad_x;        // backward data's output layout -> grad_x (x's layout)
};

// Channels-last where oneDNN's brgconv kernels have enough input channels to beat the blocked
// layout in the forward pass (the rule of onednn_conv.cpp), else oneDNN's choice (blocked).
// On a CPU without AVX-512, 2x2 pooling always gets channels-last too, so that exadnn's pooling
// loop runs rather than oneDNN's pooling primitives, whose AVX2 kernels do not let a NaN win its
// window (ConvMaxPool.NaNWinsAsInTheTwoOps).
tag activation_tag(const Conv2dGeometry& g, const Pool2dGeometry& p) {
#if defined(__x86_64__)
  static const bool avx512 = __builtin_cpu_supports("avx512f");
#else
  constexpr bool avx512 = false;
#endif
  if (!avx512 && native::is_max_pool_2x2(p)) return tag::nhwc;
  return g.c >= 16 ? tag::nhwc : tag::any;
}

Plan make_plan(const Key& k) {
  const Conv2dGeometry& g = k.conv;
  const Pool2dGeometry& p = k.pool;
  const Dims d(g, memory::data_type::f32);
  const tag act = activation_tag(g, p);
  const memory::desc bias = k.bias ? d.md(d.bias, tag::x) : memory::desc();
  const dnnl::convolution_forward::primitive_desc conv_fwd(
      dnnl::convolution_forward::desc(dnnl::prop_kind::forward_training,
                                      dnnl::algorithm::convolution_direct, d.md(d.src, act),
                                      d.md(d.weights, tag::any), bias, d.md(d.dst, act), d.strides,
                                      d.dilates, d.padding, d.padding),
      attributes(), engine());
  const memory::desc src = conv_fwd.src_desc(), conv_out = conv_fwd.dst_desc();

  const memory::dims pooled_dims{p.n, p.c, p.oh, p.ow}, window{p.kh, p.kw};
  const memory::dims pool_strides{p.stride_h, p.stride_w}, pool_padding{p.pad_h, p.pad_w};
  const bool native_pool =
      native::is_max_pool_2x2(p) && conv_out == d.md(d.dst, tag::nhwc) && p.oh * p.ow > 0;
  dnnl::pooling_forward pool_forward;
  dnnl::pooling_backward pool_backward;
  memory::desc pooled = d.md(pooled_dims, tag::nhwc), grad_pooled = pooled;
  memory::desc workspace({p.n * p.oh * p.ow * p.c}, memory::data_type::u8, tag::x);
  memory::desc scratch_pool_forward, scratch_pool_backward;
  if (!native_pool) {
    const dnnl::pooling_forward::primitive_desc pool_fwd(
        dnnl::pooling_forward::desc(dnnl::prop_kind::forward_training, dnnl::algorithm::pooling_max,
                                    conv_out, d.md(pooled_dims, tag::any), pool_strides, window,
                                    pool_padding, pool_padding),
        attributes(), engine());
    const dnnl::pooling_backward::primitive_desc pool_bwd(
        dnnl::pooling_backward::desc(dnnl::algorithm::pooling_max, conv_out, pool_fwd.dst_desc(),
                                     pool_strides, window, pool_padding, pool_padding),
        attributes(), engine(), pool_fwd);
    pool_forward = dnnl::pooling_forward(pool_fwd);
    pool_backward = dnnl::pooling_backward(pool_bwd);
    pooled = pool_fwd.dst_desc();
    grad_pooled = pool_bwd.diff_dst_desc();
    workspace = pool_fwd.workspace_desc();
    scratch_pool_forward = pool_fwd.scratchpad_desc();
    scratch_pool_backward = pool_bwd.scratchpad_desc();
  }

  const dnnl::convolution_backward_weights::primitive_desc conv_w(
      dnnl::convolution_backward_weights::desc(dnnl::algorithm::convolution_direct, src,
                                               d.md(d.weights, tag::any), bias, conv_out, d.strides,
                                               d.dilates, d.padding, d.padding),
      attributes(), engine(), conv_fwd);
  std::optional<TransposedData> transposed;
  const bool nhwc_out = conv_out == d.md(d.dst, tag::nhwc);
  if (k.measured && nhwc_out && transposed_data_takes(g)) {
    transposed = make_transposed_data(g);
    if (!transposed->brgconv()) transposed.reset();
  }
  dnnl::convolution_backward_data conv_data;
  memory::desc data_weights, scratch_conv_data, grad_x = transposed ? transposed->diff_src : src;
  if (!transposed) {
    const dnnl::convolution_backward_data::primitive_desc conv_d(
        dnnl::convolution_backward_data::desc(dnnl::algorithm::convolution_direct, d.md(d.src, act),
                                              d.md(d.weights, tag::any), conv_out, d.strides,
                                              d.dilates, d.padding, d.padding),
        attributes(), engine(), conv_fwd);
    conv_data = dnnl::convolution_backward_data(conv_d);
    data_weights = conv_d.weights_desc();
    scratch_conv_data = conv_d.scratchpad_desc();
    grad_x = conv_d.diff_src_desc();
  }

  const memory::desc user_x = d.md(d.src, k.x_nhwc ? tag::nhwc : tag::nchw);
  const memory::desc user_pooled = d.md(pooled_dims, k.out_nhwc ? tag::nhwc : tag::nchw);
  const memory::desc oihw = d.md(d.weights, d.weights_tag);
  const bool im2col_routes = k.measured && nhwc_out && src == d.md(d.src, tag::nhwc) &&
                             grad_x == src && native::nhwc_im2col_takes(g) && g.n * g.oh * g.ow > 0;
  return Plan{native_pool,
              im2col_routes,
              dnnl::convolution_forward(conv_fwd),
              pool_forward,
              pool_backward,
              dnnl::convolution_backward_weights(conv_w),
              conv_data,
              std::move(transposed),
              conv_out,
              workspace,
              bias,
              conv_fwd.scratchpad_desc(),
              scratch_pool_forward,
              scratch_pool_backward,
              conv_w.scratchpad_desc(),
              scratch_conv_data,
              Layout(user_x, src, true, false),
              Layout(oihw, conv_fwd.weights_desc(), true, false),
              Layout(user_pooled, pooled, false, true),
              Layout(user_pooled, grad_pooled, true, false),
              Layout(oihw, conv_w.diff_weights_desc(), false, true),
              transposed ? Layout() : Layout(oihw, data_weights, true, false),
              Layout(user_x, grad_x, false, true)};
}

std::shared_ptr<const Plan> plan(const Conv2dGeometry& conv, const Pool2dGeometry& pool, bool bias,
                                 bool x_nhwc, bool out_nhwc) {
  static PrimitiveCache<Key, Plan, KeyHash> cache;
  const Key key{conv, pool, bias, x_nhwc, out_nhwc, conv_algorithm() == ConvAlgorithm::fastest};
  return cache.get(key, [&] { return make_plan(key); });
}

// A tensor of raw bytes that holds memory of `md` beyond this call.
Tensor kept_buffer(const memory::desc& md) {
  return scratch_tensor({static_cast<int64_t>(md.get_size())}, DType::u8);
}

void execute(const dnnl::primitive& prim, const memory::desc& scratchpad,
             std::unordered_map<int, memory> args, Scratch& scratch) {
  scratch.add_scratchpad(scratchpad, args);
  prim.execute(stream(), args);
}

// pooled (and the workspace) from the convolution's output, as the plan says: exadnn's
// channels-last loop or oneDNN's primitive.
void pool_forward(const Plan& e, const Pool2dGeometry& pool, const memory& conv_out,
                  const memory& pooled, const Tensor& workspace, Scratch& scratch) {
  if (!e.native_pool) {
    execute(e.pool_forward, e.scratch_pool_forward,
            {{DNNL_ARG_SRC, conv_out},
             {DNNL_ARG_DST, pooled},
             {DNNL_ARG_WORKSPACE, wrap(e.workspace, workspace)}},
            scratch);
    return;
  }
  stream().wait();  // the convolution's output is complete
  native::max_pool_2x2_nhwc(pool, static_cast<const float*>(conv_out.get_data_handle()),
                            static_cast<float*>(pooled.get_data_handle()),
                            static_cast<uint8_t*>(workspace.data_ptr()));
}

// The convolution's output gradient (written whole) from the pooled one, as the plan says.
void pool_backward(const Plan& e, const Pool2dGeometry& pool, const memory& grad_pooled,
                   const memory& grad_conv, const Tensor& workspace, Scratch& scratch) {
  if (!e.native_pool) {
    execute(e.pool_backward, e.scratch_pool_backward,
            {{DNNL_ARG_DIFF_DST, grad_pooled},
             {DNNL_ARG_DIFF_SRC, grad_conv},
             {DNNL_ARG_WORKSPACE, wrap(e.workspace, workspace)}},
            scratch);
    return;
  }
  stream().wait();  // the reorder of grad_out, if any, is complete
  native::max_pool_2x2_nhwc_backward(pool, static_cast<const float*>(grad_pooled.get_data_handle()),
                                     static_cast<const uint8_t*>(workspace.data_ptr()),
                                     static_cast<float*>(grad_conv.get_data_handle()));
}

// The ReLU after the pooling (conv2d_relu_max_pool_forward): out = max(0, out), over its dense
// storage (contiguous or channels-last), after the pooled values are in place.
void relu_in_place(const Tensor& out) {
  float* o = static_cast<float*>(out.data_ptr());
  const int64_t n = out.numel();
#pragma omp parallel for simd schedule(static) if (n > (int64_t{1} << 16))
  for (int64_t i = 0; i < n; ++i) o[i] = o[i] > 0.0f ? o[i] : 0.0f;
}

// Whether a and b (one shape) lay their elements out alike: the same stride on every dimension
// of more than one element.
bool same_layout(const Tensor& a, const Tensor& b) {
  for (int64_t d = 0; d < a.dim(); ++d)
    if (a.size(d) > 1 && a.strides()[static_cast<size_t>(d)] != b.strides()[static_cast<size_t>(d)])
      return false;
  return true;
}

// Its gradient: grad where the ReLU's output is > 0, else 0, as a flat scratch copy in grad's
// storage order (grad and the output share out's format, so one layout).
Tensor relu_masked(const Tensor& grad, const Tensor& relu_output) {
  EXADNN_CHECK(same_layout(grad, relu_output), "conv2d_relu_max_pool2d", "the gradient's strides ",
               grad.strides(), " differ from the output's ", relu_output.strides());
  const Tensor masked = scratch_tensor({grad.numel()}, DType::f32);
  const float* g = static_cast<const float*>(grad.data_ptr());
  const float* y = static_cast<const float*>(relu_output.data_ptr());
  float* m = static_cast<float*>(masked.data_ptr());
  const int64_t n = grad.numel();
  // g[i] is read whatever y[i] is, so the loop is a vector select: with the read under the
  // condition g++ compiled a compare and a branch per element (alone, for a [128, 64, 4, 4]
  // gradient with half the outputs zero at 2 threads: 266 us against 12 us).
#pragma omp parallel for simd schedule(static) if (n > (int64_t{1} << 16))
  for (int64_t i = 0; i < n; ++i) {
    const float gi = g[i];
    m[i] = y[i] > 0.0f ? gi : 0.0f;
  }
  return masked;
}

// The routes a channels-last plan measures for each backward pass (Plan::im2col_routes): the
// plan's oneDNN primitives and exadnn's im2col + GEMM.
constexpr ConvRoute kBackwardRoutes[] = {ConvRoute::onednn_nhwc, ConvRoute::im2col};

// Each backward pass takes its scratch memory in a Scratch of its own (`pass_scratch`), released
// when the pass ends. A measurement runs a pass many times within one call, and each run must
// reuse the memory the last one released, as the passes of successive training steps do: with
// the call's Scratch holding every run's buffers until its end, each oneDNN run of a measurement
// took fresh, cold memory, measured ~25 % slower than in training (the weights' pass of a CNN's
// conv2 on an AVX-512 EPYC: 3.0 vs 2.4 ms), and the im2col route, which takes little, was chosen.
// Runs one backward pass: run(route) by the route measured for it where the plan offers the
// choice, by oneDNN (ConvRoute::onednn_nhwc stands for the plan's primitives) otherwise.
void run_backward_pass(const Plan& e, const Conv2dGeometry& conv, bool bias, ConvPass pass,
                       const std::function<void(ConvRoute)>& run) {
  if (!e.im2col_routes) return run(ConvRoute::onednn_nhwc);
  run(tuned_conv_route(conv, bias, pass, run, kBackwardRoutes, "conv2d_max_pool2d"));
}

// The weights' gradient (and the bias's, when the step has one) by the plan's oneDNN primitive,
// which computes both; grad_weight or grad_bias undefined: not wanted.
void onednn_backward_weights(const Plan& e, const Tensor& grad_weight, const Tensor& grad_bias,
                             const ConvMaxPoolSaved& saved, const memory& grad_conv,
                             Scratch& scratch) {
  const memory dw = grad_weight.defined() ? e.grad_weights.output(grad_weight, scratch)
                                          : scratch.make(e.grad_weights.inner);
  std::unordered_map<int, memory> args{{DNNL_ARG_SRC, wrap(e.x.inner, saved.input)},
                                       {DNNL_ARG_DIFF_DST, grad_conv},
                                       {DNNL_ARG_DIFF_WEIGHTS, dw}};
  if (saved.bias)
    args.emplace(DNNL_ARG_DIFF_BIAS,
                 grad_bias.defined() ? wrap(e.bias, grad_bias) : scratch.make(e.bias));
  execute(e.conv_weights, e.scratch_conv_weights, args, scratch);
  if (grad_weight.defined()) e.grad_weights.finish(dw, grad_weight, scratch);
  stream().wait();
}

// The f32 memory of a tensor (in the layout the plan agreed with it) or of oneDNN memory.
float* float_data(const Tensor& t) {
  return static_cast<float*>(t.data_ptr());
}
const float* float_data(const memory& m) {
  return static_cast<const float*>(m.get_data_handle());
}

}  // namespace

ConvMaxPoolSaved conv2d_max_pool_forward(const Conv2dGeometry& conv, const Pool2dGeometry& pool,
                                         const Tensor& out, const Tensor& x, const Tensor& weight,
                                         const Tensor& bias, bool relu) {
  return guarded("conv2d_max_pool2d", [&] {
    // A 4-D tensor that is not contiguous is channels-last (the op's contract).
    const bool x_nhwc = !x.is_contiguous(), out_nhwc = !out.is_contiguous();
    const auto e = plan(conv, pool, bias.defined(), x_nhwc, out_nhwc);
    Scratch scratch;
    ConvMaxPoolSaved saved;
    saved.bias = bias.defined();
    saved.x_channels_last = x_nhwc;
    saved.out_channels_last = out_nhwc;
    memory src = wrap(e->x.user, x);
    if (e->x.same()) {
      saved.input = x;
    } else {  // reordered into a buffer the backward pass reads again
      saved.input = kept_buffer(e->x.inner);
      const memory inner = wrap(e->x.inner, saved.input);
      execute(e->x.to_inner, e->x.to_inner_scratchpad, {{DNNL_ARG_FROM, src}, {DNNL_ARG_TO, inner}},
              scratch);
      src = inner;
    }
    const memory conv_out = scratch.make(e->conv_out);
    std::unordered_map<int, memory> conv_args{{DNNL_ARG_SRC, src},
                                              {DNNL_ARG_WEIGHTS, e->weights.input(weight, scratch)},
                                              {DNNL_ARG_DST, conv_out}};
    if (bias.defined()) conv_args.emplace(DNNL_ARG_BIAS, wrap(e->bias, bias));
    execute(e->conv_forward, e->scratch_conv_forward, conv_args, scratch);

    saved.workspace = kept_buffer(e->workspace);
    const memory pooled = e->pooled.output(out, scratch);
    pool_forward(*e, pool, conv_out, pooled, saved.workspace, scratch);
    e->pooled.finish(pooled, out, scratch);
    stream().wait();
    if (relu) relu_in_place(out);
    scratch.check_guards("conv2d_max_pool2d");
    return saved;
  });
}

void conv2d_max_pool_backward(const Conv2dGeometry& conv, const Pool2dGeometry& pool,
                              const Tensor& grad_x, const Tensor& grad_weight,
                              const Tensor& grad_bias, const Tensor& grad_out, const Tensor& weight,
                              const ConvMaxPoolSaved& saved) {
  guarded("conv2d_max_pool2d", [&] {
    const auto e = plan(conv, pool, saved.bias, saved.x_channels_last, saved.out_channels_last);
    Scratch scratch;
    const memory grad_conv = scratch.make(e->conv_out);  // written whole by the pooling backward
    const Tensor grad =
        saved.relu_output.defined() ? relu_masked(grad_out, saved.relu_output) : grad_out;
    const memory grad_pooled = e->grad_pooled.input(grad, scratch);
    pool_backward(*e, pool, grad_pooled, grad_conv, saved.workspace, scratch);
    stream().wait();  // grad_conv is complete (exadnn's im2col routes read it directly)
    const bool bias_wanted = saved.bias && grad_bias.defined();
    if (grad_weight.defined() || bias_wanted)
      run_backward_pass(*e, conv, saved.bias, ConvPass::backward_weights, [&](ConvRoute route) {
        if (route == ConvRoute::im2col)
          return native::conv2d_backward_weights_nhwc(
              conv, float_data(saved.input), float_data(grad_conv),
              grad_weight.defined() ? float_data(grad_weight) : nullptr,
              bias_wanted ? float_data(grad_bias) : nullptr);
        Scratch pass_scratch;  // one per pass: see run_backward_pass
        onednn_backward_weights(*e, grad_weight, grad_bias, saved, grad_conv, pass_scratch);
        pass_scratch.check_guards("conv2d_max_pool2d");
      });
    if (grad_x.defined())
      run_backward_pass(*e, conv, saved.bias, ConvPass::backward_data, [&](ConvRoute route) {
        Scratch pass_scratch;  // one per pass: see run_backward_pass
        const memory dx = e->grad_x.output(grad_x, pass_scratch);
        if (route == ConvRoute::im2col)
          native::conv2d_backward_data_nhwc(conv, float_data(grad_conv), float_data(weight),
                                            static_cast<float*>(dx.get_data_handle()));
        else if (e->transposed_data)
          run_transposed_data(conv, *e->transposed_data, grad_conv, weight, dx, pass_scratch);
        else
          execute(e->conv_data, e->scratch_conv_data,
                  {{DNNL_ARG_DIFF_DST, grad_conv},
                   {DNNL_ARG_WEIGHTS, e->data_weights.input(weight, pass_scratch)},
                   {DNNL_ARG_DIFF_SRC, dx}},
                  pass_scratch);
        e->grad_x.finish(dx, grad_x, pass_scratch);
        stream().wait();
        pass_scratch.check_guards("conv2d_max_pool2d");
      });
    stream().wait();
    scratch.check_guards("conv2d_max_pool2d");
  });
}

}  // namespace exadnn::cpu::onednn
