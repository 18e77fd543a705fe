// GEMM through a cached oneDNN matmul primitive (onednn_matmul.h).
#include "onednn_matmul.h"

#include <bit>
#include <unordered_map>

#include "onednn_context.h"

namespace exadnn::cpu {

namespace {

using onednn::memory;

struct MatmulKey {
  int64_t m, n, k, lda, ldb, ldc;
  bool trans_a, trans_b;
  memory::data_type in, out;
  float alpha, beta;
  bool bias, relu;
  bool operator==(const MatmulKey&) const = default;
};
struct MatmulKeyHash {
  size_t operator()(const MatmulKey& k) const {
    return onednn::hash_ints({k.m, k.n, k.k, k.lda, k.ldb, k.ldc, k.trans_a, k.trans_b,
                              static_cast<int64_t>(k.in), static_cast<int64_t>(k.out),
                              std::bit_cast<int32_t>(k.alpha), std::bit_cast<int32_t>(k.beta),
                              k.bias, k.relu});
  }
};
struct MatmulPrimitive {
  dnnl::matmul prim;
  memory::desc a, b, c, bias, scratchpad;  // bias: [1, n], zero-sized without one
};

onednn::PrimitiveCache<MatmulKey, MatmulPrimitive, MatmulKeyHash>& matmul_cache() {
  static onednn::PrimitiveCache<MatmulKey, MatmulPrimitive, MatmulKeyHash> cache;
  return cache;
}

// A transposed operand is the same memory read with its strides swapped.
memory::desc operand(int64_t rows, int64_t cols, int64_t ld, bool transposed,
                     memory::data_type dt) {
  return memory::desc({rows, cols}, dt, transposed ? memory::dims{1, ld} : memory::dims{ld, 1});
}

MatmulPrimitive make_matmul(const MatmulKey& k) {
  MatmulPrimitive p;
  p.a = operand(k.m, k.k, k.lda, k.trans_a, k.in);
  p.b = operand(k.k, k.n, k.ldb, k.trans_b, k.in);
  p.c = operand(k.m, k.n, k.ldc, false, k.out);
  if (k.bias) p.bias = memory::desc({1, k.n}, k.out, memory::dims{k.n, 1});
  dnnl::primitive_attr attr;
  attr.set_scratchpad_mode(dnnl::scratchpad_mode::user);
  if (k.alpha != 1.0f) attr.set_output_scales(0, {k.alpha});
  dnnl::post_ops ops;  // in order: + beta·C, then max(0, ·)
  if (k.beta != 0.0f) ops.append_sum(k.beta);
  if (k.relu) ops.append_eltwise(1.0f, dnnl::algorithm::eltwise_relu, 0.0f, 0.0f);
  if (ops.len() > 0) attr.set_post_ops(ops);
  const dnnl::matmul::desc desc =
      k.bias ? dnnl::matmul::desc(p.a, p.b, p.bias, p.c) : dnnl::matmul::desc(p.a, p.b, p.c);
  const dnnl::matmul::primitive_desc pd(desc, attr, onednn::engine());
  p.scratchpad = pd.scratchpad_desc();
  p.prim = dnnl::matmul(pd);
  return p;
}

}  // namespace

void onednn_matmul(const GemmArgs& g, memory::data_type in, memory::data_type out,
                   const MatmulEpilogue& epilogue) {
  const MatmulKey key{g.m,
                      g.n,
                      g.k,
                      g.lda,
                      g.ldb,
                      g.ldc,
                      g.trans_a,
                      g.trans_b,
                      in,
                      out,
                      static_cast<float>(g.alpha),
                      static_cast<float>(g.beta),
                      epilogue.bias != nullptr,
                      epilogue.relu};
  onednn::guarded("gemm", [&] {
    const auto p = matmul_cache().get(key, [&] { return make_matmul(key); });
    onednn::Scratch scratch;
    std::unordered_map<int, memory> args{
        {DNNL_ARG_SRC, memory(p->a, onednn::engine(), const_cast<void*>(g.a))},
        {DNNL_ARG_WEIGHTS, memory(p->b, onednn::engine(), const_cast<void*>(g.b))},
        {DNNL_ARG_DST, memory(p->c, onednn::engine(), g.c)}};
    if (epilogue.bias != nullptr)
      args.emplace(DNNL_ARG_BIAS,
                   memory(p->bias, onednn::engine(), const_cast<void*>(epilogue.bias)));
    scratch.add_scratchpad(p->scratchpad, args);
    p->prim.execute(onednn::stream(), args);
    onednn::stream().wait();
    scratch.check_guards("gemm");
  });
}

}  // namespace exadnn::cpu
