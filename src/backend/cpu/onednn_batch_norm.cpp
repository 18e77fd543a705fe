// Batch normalisation through oneDNN (f32), forward and backward, on x viewed as plain
// [n, c, spatial, 1]. Training computes the batch statistics; otherwise they are given
// (use_global_stats, also in the backward pass, where they are then constants).
#include <algorithm>
#include <cstring>

#include "nn_impl.h"
#include "onednn_context.h"

namespace exadnn::cpu::onednn {

namespace {

struct Key {
  BatchNormGeometry g;
  bool affine;  // scale and shift present
  bool backward;
  bool operator==(const Key&) const = default;
};

struct KeyHash {
  size_t operator()(const Key& k) const {
    const BatchNormGeometry& g = k.g;
    int64_t eps_bits;
    static_assert(sizeof(eps_bits) == sizeof(g.eps));
    std::memcpy(&eps_bits, &g.eps, sizeof(eps_bits));
    return hash_ints({g.n, g.c, g.spatial, eps_bits, g.training, k.affine, k.backward});
  }
};

dnnl::normalization_flags flags_of(const BatchNormGeometry& g, bool affine) {
  auto f = dnnl::normalization_flags::none;
  if (!g.training) f = f | dnnl::normalization_flags::use_global_stats;
  if (affine) f = f | dnnl::normalization_flags::use_scale | dnnl::normalization_flags::use_shift;
  return f;
}

memory::desc data_desc(const BatchNormGeometry& g) {
  return f32_desc({g.n, g.c, g.spatial, 1}, tag::nchw);
}

dnnl::batch_normalization_forward::primitive_desc forward_pd(const BatchNormGeometry& g,
                                                             bool affine) {
  dnnl::batch_normalization_forward::desc desc(
      g.training ? dnnl::prop_kind::forward_training : dnnl::prop_kind::forward_inference,
      data_desc(g), static_cast<float>(g.eps), flags_of(g, affine));
  return dnnl::batch_normalization_forward::primitive_desc(desc, attributes(), engine());
}

struct Forward {
  dnnl::batch_normalization_forward prim;
  memory::desc scratchpad;
};
struct Backward {
  dnnl::batch_normalization_backward prim;
  memory::desc scratchpad;
};

// A [c] tensor of `value` in scratch memory.
Tensor filled(int64_t c, float value) {
  Tensor t = scratch_tensor({c}, DType::f32);
  std::fill_n(static_cast<float*>(t.data_ptr()), c, value);
  return t;
}

// Scale and shift for oneDNN: both or neither; a missing one becomes ones / zeros.
struct Affine {
  Tensor scale, shift;
  bool present = false;
  Affine(const BatchNormGeometry& g, const Tensor& s, const Tensor& b) : scale(s), shift(b) {
    present = s.defined() || b.defined();
    if (present && !scale.defined()) scale = filled(g.c, 1.0f);
    if (present && !shift.defined()) shift = filled(g.c, 0.0f);
  }
};

}  // namespace

void batch_norm_forward(const BatchNormGeometry& g, const Tensor& y, const Tensor& x,
                        const Tensor& scale, const Tensor& shift, const Tensor& mean,
                        const Tensor& var) {
  const Affine a(g, scale, shift);
  guarded("batch_norm", [&] {
    static PrimitiveCache<Key, Forward, KeyHash> cache;
    const auto e = cache.get(Key{g, a.present, false}, [&] {
      const auto pd = forward_pd(g, a.present);
      return Forward{dnnl::batch_normalization_forward(pd), pd.scratchpad_desc()};
    });
    const memory::desc data = data_desc(g), stat = f32_desc({g.c}, tag::x);
    std::unordered_map<int, memory> args{{DNNL_ARG_SRC, wrap(data, x)},
                                         {DNNL_ARG_DST, wrap(data, y)},
                                         {DNNL_ARG_MEAN, wrap(stat, mean)},
                                         {DNNL_ARG_VARIANCE, wrap(stat, var)}};
    if (a.present) {
      args.emplace(DNNL_ARG_SCALE, wrap(stat, a.scale));
      args.emplace(DNNL_ARG_SHIFT, wrap(stat, a.shift));
    }
    Scratch scratch;
    scratch.add_scratchpad(e->scratchpad, args);
    e->prim.execute(stream(), args);
    stream().wait();
    scratch.check_guards("batch_norm");
  });
}

void batch_norm_backward(const BatchNormGeometry& g, const Tensor& grad_x, const Tensor& grad_scale,
                         const Tensor& grad_shift, const Tensor& grad_y, const Tensor& x,
                         const Tensor& scale, const Tensor& mean, const Tensor& var) {
  // With scale (or a wanted gradient of it or of the shift) the primitive runs affine and writes
  // both parameter gradients; one not wanted goes to scratch.
  const bool affine = scale.defined() || grad_scale.defined() || grad_shift.defined();
  // (oneDNN also wants the shift as an argument, though the gradients do not depend on it.)
  Tensor scale_in = scale, shift_in, ds = grad_scale, db = grad_shift;
  if (affine) {
    shift_in = filled(g.c, 0.0f);
    if (!scale_in.defined()) scale_in = filled(g.c, 1.0f);
    if (!ds.defined()) ds = scratch_tensor({g.c}, DType::f32);
    if (!db.defined()) db = scratch_tensor({g.c}, DType::f32);
  }
  guarded("batch_norm", [&] {
    static PrimitiveCache<Key, Backward, KeyHash> cache;
    const auto e = cache.get(Key{g, affine, true}, [&] {
      const auto hint = forward_pd(g, affine);
      dnnl::batch_normalization_backward::desc desc(
          affine ? dnnl::prop_kind::backward : dnnl::prop_kind::backward_data, data_desc(g),
          data_desc(g), static_cast<float>(g.eps), flags_of(g, affine));
      const dnnl::batch_normalization_backward::primitive_desc pd(desc, attributes(), engine(),
                                                                  hint);
      return Backward{dnnl::batch_normalization_backward(pd), pd.scratchpad_desc()};
    });
    const memory::desc data = data_desc(g), stat = f32_desc({g.c}, tag::x);
    std::unordered_map<int, memory> args{{DNNL_ARG_SRC, wrap(data, x)},
                                         {DNNL_ARG_DIFF_DST, wrap(data, grad_y)},
                                         {DNNL_ARG_DIFF_SRC, wrap(data, grad_x)},
                                         {DNNL_ARG_MEAN, wrap(stat, mean)},
                                         {DNNL_ARG_VARIANCE, wrap(stat, var)}};
    if (affine) {
      args.emplace(DNNL_ARG_SCALE, wrap(stat, scale_in));
      args.emplace(DNNL_ARG_SHIFT, wrap(stat, shift_in));
      args.emplace(DNNL_ARG_DIFF_SCALE, wrap(stat, ds));
      args.emplace(DNNL_ARG_DIFF_SHIFT, wrap(stat, db));
    }
    Scratch scratch;
    scratch.add_scratchpad(e->scratchpad, args);
    e->prim.execute(stream(), args);
    stream().wait();
    scratch.check_guards("batch_norm");
  });
}

}  // namespace exadnn::cpu::onednn
