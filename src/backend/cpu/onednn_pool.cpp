// Pooling through oneDNN (f32) on plain NCHW tensors: max (training keeps oneDNN's workspace for
// the backward pass), average with or without padding, and adaptive average when its windows
// tile the input evenly (then it is an ordinary average pooling).
#include "nn_impl.h"
#include "onednn_context.h"

namespace exadnn::cpu::onednn {

namespace {

// The fixed-window pooling oneDNN runs for g (adaptive pooling rewritten).
Pool2dGeometry as_fixed(const Pool2dGeometry& g) {
  if (g.kind != PoolKind::adaptive_avg) return g;
  Pool2dGeometry f = g;
  f.kind = PoolKind::avg_exclude_pad;
  f.kh = f.stride_h = g.h / g.oh;
  f.kw = f.stride_w = g.w / g.ow;
  f.pad_h = f.pad_w = 0;
  return f;
}

struct Key {
  Pool2dGeometry g;
  bool training;
  bool backward;
  bool operator==(const Key&) const = default;
};

struct KeyHash {
  size_t operator()(const Key& k) const {
    const Pool2dGeometry& g = k.g;
    return hash_ints({static_cast<int64_t>(g.kind), g.n, g.c, g.h, g.w, g.oh, g.ow, g.kh, g.kw,
                      g.stride_h, g.stride_w, g.pad_h, g.pad_w, k.training, k.backward});
  }
};

dnnl::algorithm algorithm_of(PoolKind kind) {
  switch (kind) {
    case PoolKind::max:
      return dnnl::algorithm::pooling_max;
    case PoolKind::avg_include_pad:
      return dnnl::algorithm::pooling_avg_include_padding;
    default:
      return dnnl::algorithm::pooling_avg_exclude_padding;
  }
}

struct Descs {
  memory::desc src, dst;
  memory::dims strides, kernel, padding;
  explicit Descs(const Pool2dGeometry& g)
      : src(f32_desc({g.n, g.c, g.h, g.w}, tag::nchw)),
        dst(f32_desc({g.n, g.c, g.oh, g.ow}, tag::nchw)),
        strides{g.stride_h, g.stride_w},
        kernel{g.kh, g.kw},
        padding{g.pad_h, g.pad_w} {}
};

dnnl::pooling_forward::primitive_desc forward_pd(const Pool2dGeometry& g, bool training) {
  const Descs d(g);
  dnnl::pooling_forward::desc desc(
      training ? dnnl::prop_kind::forward_training : dnnl::prop_kind::forward_inference,
      algorithm_of(g.kind), d.src, d.dst, d.strides, d.kernel, d.padding, d.padding);
  return dnnl::pooling_forward::primitive_desc(desc, attributes(), engine());
}

struct Forward {
  dnnl::pooling_forward prim;
  memory::desc src, dst, workspace, scratchpad;
  bool has_workspace;
};

struct Backward {
  dnnl::pooling_backward prim;
  memory::desc diff_src, diff_dst, workspace, scratchpad;
};

PrimitiveCache<Key, Forward, KeyHash>& forward_cache() {
  static PrimitiveCache<Key, Forward, KeyHash> cache;
  return cache;
}

PrimitiveCache<Key, Backward, KeyHash>& backward_cache() {
  static PrimitiveCache<Key, Backward, KeyHash> cache;
  return cache;
}

}  // namespace

bool supports(const Pool2dGeometry& g) {
  if (g.kind != PoolKind::adaptive_avg) return true;
  return g.oh > 0 && g.ow > 0 && g.h % g.oh == 0 && g.w % g.ow == 0;
}

Tensor pool2d_forward(const Pool2dGeometry& g0, const Tensor& out, const Tensor& x, bool training) {
  const Pool2dGeometry g = as_fixed(g0);
  training = training && g.kind == PoolKind::max;  // only max pooling needs a workspace
  return guarded("pool2d", [&] {
    const auto e = forward_cache().get(Key{g, training, false}, [&] {
      const auto pd = forward_pd(g, training);
      const memory::desc ws = training ? pd.workspace_desc() : memory::desc();
      return Forward{
          dnnl::pooling_forward(pd),    pd.src_desc(), pd.dst_desc(), ws, pd.scratchpad_desc(),
          training && ws.get_size() > 0};
    });
    std::unordered_map<int, memory> args{{DNNL_ARG_SRC, wrap(e->src, x)},
                                         {DNNL_ARG_DST, wrap(e->dst, out)}};
    Tensor workspace;
    if (e->has_workspace) {
      workspace = scratch_tensor({static_cast<int64_t>(e->workspace.get_size())}, DType::u8);
      args.emplace(DNNL_ARG_WORKSPACE, wrap(e->workspace, workspace));
    }
    Scratch scratch;
    scratch.add_scratchpad(e->scratchpad, args);
    e->prim.execute(stream(), args);
    stream().wait();
    scratch.check_guards("pool2d");
    return workspace;
  });
}

void pool2d_backward(const Pool2dGeometry& g0, const Tensor& grad_x, const Tensor& grad_out,
                     const Tensor& workspace) {
  const Pool2dGeometry g = as_fixed(g0);
  const bool is_max = g.kind == PoolKind::max;
  EXADNN_CHECK(!is_max || (workspace.defined() && workspace.dtype() == DType::u8), "max_pool2d",
               "backward needs the workspace of oneDNN's forward pooling");
  guarded("pool2d", [&] {
    const auto e = backward_cache().get(Key{g, is_max, true}, [&] {
      const Descs d(g);
      const auto hint = forward_pd(g, is_max);
      dnnl::pooling_backward::desc desc(algorithm_of(g.kind), d.src, d.dst, d.strides, d.kernel,
                                        d.padding, d.padding);
      const dnnl::pooling_backward::primitive_desc pd(desc, attributes(), engine(), hint);
      return Backward{dnnl::pooling_backward(pd), pd.diff_src_desc(), pd.diff_dst_desc(),
                      is_max ? hint.workspace_desc() : memory::desc(), pd.scratchpad_desc()};
    });
    std::unordered_map<int, memory> args{{DNNL_ARG_DIFF_DST, wrap(e->diff_dst, grad_out)},
                                         {DNNL_ARG_DIFF_SRC, wrap(e->diff_src, grad_x)}};
    if (is_max) args.emplace(DNNL_ARG_WORKSPACE, wrap(e->workspace, workspace));
    Scratch scratch;
    scratch.add_scratchpad(e->scratchpad, args);
    e->prim.execute(stream(), args);
    stream().wait();
    scratch.check_guards("pool2d");
  });
}

}  // namespace exadnn::cpu::onednn
