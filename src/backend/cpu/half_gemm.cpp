// 16-bit GEMM with f32 accumulation, and f32 GEMM at reduced (bf16, fp16) or split precision.
//
// bf16 products run through oneDNN's matmul (brgemm kernels using vdpbf16ps on AVX512-BF16 CPUs),
// f32 sums. oneDNN 2.6 has no f16 matmul on CPUs, so fp16 products are formed by widening the
// fp16 operands to f32 and calling the f32 GEMM: a product of two fp16 values is exact in f32,
// so this is an fp16 GEMM with f32 accumulation (at f32 speed).
//
// Split precision packs each operand into its pieces concatenated along K (A: [A0 A1 A2],
// B: [B2; B1; B0]), so every group of products of one scale is one GEMM over consecutive pieces:
//   split_fp16: C = A_hi·B_hi + 2^-11·([A_hi ΔA]·[ΔB; B_hi])                (3 products)
//   split_bf16: C = A0·B0 + 2^-8·([A0 A1]·[B1; B0]) + 2^-16·([A0 A1 A2]·[B2; B1; B0])   (6)
// The small groups run first and the next GEMM adds onto C (beta = 1), so C is rounded in order
// of increasing magnitude.
#include <algorithm>
#include <cstring>
#include <memory>
#include <type_traits>
#include <vector>

#include "exadnn/core/half_convert.h"
#include "exadnn/core/storage.h"
#include "gemm_impl.h"
#include "loops.h"
#include "onednn_context.h"
#include "onednn_matmul.h"

namespace exadnn::cpu {

namespace {

constexpr int64_t kChunk = 256;  // elements converted per step of a row (stack buffers)

template <class T>
void widened_gemm(const GemmArgs& g, bool t_out);

// C = alpha·op(A)·op(B) + beta·C with bf16 A and B; C is bf16 or f32. On a CPU without oneDNN's
// bf16 kernels (onednn_context.h), as an f32 GEMM of the widened operands: the same products
// (exact in f32) and f32 sums.
void bf16_matmul(const GemmArgs& g, bool bf16_out) {
  using dt = dnnl::memory::data_type;
  if (!onednn::has_bf16_kernels()) return widened_gemm<BFloat16>(g, bf16_out);
  onednn_matmul(g, dt::bf16, bf16_out ? dt::bf16 : dt::f32);
}

// --- packing operands into pieces ---------------------------------------------------------------

// A GEMM operand as stored: rows x cols, leading dimension ld; K runs along its columns
// (A not transposed, B transposed) or along its rows.
struct Stored {
  const void* p;
  int64_t rows, cols, ld;
  bool k_along_cols;
};
Stored stored_a(const GemmArgs& g) {
  return g.trans_a ? Stored{g.a, g.k, g.m, g.lda, false} : Stored{g.a, g.m, g.k, g.lda, true};
}
Stored stored_b(const GemmArgs& g) {
  return g.trans_b ? Stored{g.b, g.n, g.k, g.ldb, true} : Stored{g.b, g.k, g.n, g.ldb, false};
}

// `count` dense copies (pieces) of a stored operand, concatenated along K: side by side when K
// runs along the columns, stacked otherwise. B's pieces are stored in reverse order.
template <class Out>
struct Pieces {
  Out* data;
  Stored s;
  int count;
  bool reversed;

  int64_t ld() const { return s.k_along_cols ? count * s.cols : s.cols; }
  // Start of the slot `slot` (storage order).
  Out* slot(int slot) const {
    return s.k_along_cols ? data + slot * s.cols : data + slot * s.rows * s.cols;
  }
  Out* row(int piece, int64_t r) const {
    return slot(reversed ? count - 1 - piece : piece) + r * ld();
  }
};

template <class Out>
Pieces<Out> allocate_pieces(std::vector<std::shared_ptr<Storage>>& keep, const Stored& s, int count,
                            bool reversed) {
  const int64_t elements = std::max<int64_t>(count * s.rows * s.cols, 1);
  keep.push_back(Storage::allocate(static_cast<size_t>(elements) * sizeof(Out), Device::cpu(),
                                   MemoryKind::host));
  return {static_cast<Out*>(keep.back()->data()), s, count, reversed};
}

// Fills the pieces row by row: split(x, n, out) writes n elements of every piece from the f32
// values x (16-bit sources are widened first).
template <class In, class Out, class Split>
void pack(const Pieces<Out>& dst, Split split) {
  const Stored& s = dst.s;
#pragma omp parallel for if (s.rows * s.cols >= kParallelGrain)
  for (int64_t r = 0; r < s.rows; ++r) {
    const In* src = static_cast<const In*>(s.p) + r * s.ld;
    float wide[kChunk];
    for (int64_t c = 0; c < s.cols; c += kChunk) {
      const int64_t n = std::min(kChunk, s.cols - c);
      const float* x = wide;
      if constexpr (std::is_same_v<In, float>) {
        x = src + c;
      } else {
        convert(src + c, wide, n);
      }
      Out* out[3] = {};
      for (int p = 0; p < dst.count; ++p) out[p] = dst.row(p, r) + c;
      split(x, n, out);
    }
  }
}

// f32 values of fp16 pieces: hi = fp16(x), then Δ = fp16((x - hi)·2^11).
void split_fp16(const float* x, int64_t n, float* const* out, int count) {
  Half h[kChunk];
  convert(x, h, n);
  convert(h, out[0], n);
  if (count == 1) return;
  float r[kChunk];
  for (int64_t i = 0; i < n; ++i) r[i] = (x[i] - out[0][i]) * 2048.0f;  // x - hi is exact
  convert(r, h, n);
  convert(h, out[1], n);
}

// bf16 pieces: A0 = bf16(x), A1 = bf16((x - A0)·2^8), A2 = bf16((x - A0 - 2^-8·A1)·2^16).
void split_bf16(const float* x, int64_t n, BFloat16* const* out, int count) {
  float piece[kChunk], r[kChunk];
  convert(x, out[0], n);
  if (count == 1) return;
  convert(out[0], piece, n);
  for (int64_t i = 0; i < n; ++i) r[i] = (x[i] - piece[i]) * 256.0f;  // exact
  convert(r, out[1], n);
  if (count == 2) return;
  convert(out[1], piece, n);
  for (int64_t i = 0; i < n; ++i) r[i] = (r[i] - piece[i]) * 256.0f;  // exact
  convert(r, out[2], n);
}

// GEMM arguments over the K-concatenation of pieces [a_first, a_first + count) of A and
// [b_first, b_first + count) of B (storage slots), with C and beta from g.
template <class T>
GemmArgs piece_args(const GemmArgs& g, const Pieces<T>& a, int a_first, const Pieces<T>& b,
                    int b_first, int count, double alpha, double beta) {
  GemmArgs p = g;
  p.k = g.k * count;
  p.a = a.slot(a_first);
  p.lda = a.ld();
  p.b = b.slot(b_first);
  p.ldb = b.ld();
  p.alpha = alpha;
  p.beta = beta;
  return p;
}

// C = beta·C when K = 0 (no products).
template <class T>
void scale_c(const GemmArgs& g) {
  T* c = static_cast<T*>(g.c);
  for (int64_t i = 0; i < g.m; ++i)
    for (int64_t j = 0; j < g.n; ++j)
      c[i * g.ldc + j] = g.beta == 0.0
                             ? T(0.0f)
                             : T(static_cast<float>(g.beta * static_cast<float>(c[i * g.ldc + j])));
}

// Packs A and B of g into `count` pieces each with split(x, n, out, count), then run(a, b).
template <class Out, class Split, class Run>
void with_pieces(const GemmArgs& g, int count, Split split, Run run) {
  std::vector<std::shared_ptr<Storage>> keep;
  const auto a = allocate_pieces<Out>(keep, stored_a(g), count, false);
  const auto b = allocate_pieces<Out>(keep, stored_b(g), count, true);
  const auto fill = [&](const float* x, int64_t n, Out* const* out) { split(x, n, out, count); };
  pack<float>(a, fill);
  pack<float>(b, fill);
  run(a, b);
}

void gemm_fp16_pieces(const GemmArgs& g, int count) {
  with_pieces<float>(g, count, split_fp16, [&](const Pieces<float>& a, const Pieces<float>& b) {
    if (count == 1) return sgemm(piece_args(g, a, 0, b, 0, 1, g.alpha, g.beta));
    sgemm(piece_args(g, a, 0, b, 0, 2, g.alpha / 2048.0, g.beta));  // [A_hi ΔA]·[ΔB; B_hi]
    sgemm(piece_args(g, a, 0, b, 1, 1, g.alpha, 1.0));              // A_hi·B_hi
  });
}

void gemm_bf16_pieces(const GemmArgs& g, int count) {
  with_pieces<BFloat16>(
      g, count, split_bf16, [&](const Pieces<BFloat16>& a, const Pieces<BFloat16>& b) {
        if (count == 1) return bf16_matmul(piece_args(g, a, 0, b, 0, 1, g.alpha, g.beta), false);
        bf16_matmul(piece_args(g, a, 0, b, 0, 3, g.alpha / 65536.0, g.beta), false);  // 2^-16 group
        bf16_matmul(piece_args(g, a, 0, b, 1, 2, g.alpha / 256.0, 1.0), false);       // 2^-8 group
        bf16_matmul(piece_args(g, a, 0, b, 2, 1, g.alpha, 1.0), false);               // A0·B0
      });
}

// C = alpha·op(A)·op(B) + beta·C with 16-bit T operands, as an f32 GEMM of the widened (exact)
// operands; C is T (an f32 result in a dense buffer, C's rows widened first when beta != 0,
// rounded once) or f32 (written in place).
template <class T>
void widened_gemm(const GemmArgs& g, bool t_out) {
  std::vector<std::shared_ptr<Storage>> keep;
  auto a = allocate_pieces<float>(keep, stored_a(g), 1, false);
  auto b = allocate_pieces<float>(keep, stored_b(g), 1, false);
  auto widen = [](const float* x, int64_t n, float* const* out) {
    std::memcpy(out[0], x, static_cast<size_t>(n) * sizeof(float));
  };
  pack<T>(a, widen);
  pack<T>(b, widen);
  GemmArgs f = piece_args(g, a, 0, b, 0, 1, g.alpha, g.beta);
  if (!t_out) return sgemm(f);
  const Stored c_stored{g.c, g.m, g.n, g.ldc, true};
  auto c = allocate_pieces<float>(keep, c_stored, 1, false);
  if (g.beta != 0.0) pack<T>(c, widen);
  f.c = c.data;
  f.ldc = g.n;
  sgemm(f);
  T* dst = static_cast<T*>(g.c);
#pragma omp parallel for if (g.m * g.n >= kParallelGrain)
  for (int64_t r = 0; r < g.m; ++r) convert(c.data + r * g.n, dst + r * g.ldc, g.n);
}

}  // namespace

void sgemm_with_precision(const GemmArgs& g) {
  if (g.precision == MatmulPrecision::fp32) return sgemm(g);
  if (g.m == 0 || g.n == 0) return;
  if (g.k == 0) return scale_c<float>(g);
  switch (g.precision) {
    case MatmulPrecision::fp16:
      return gemm_fp16_pieces(g, 1);
    case MatmulPrecision::split_fp16:
      return gemm_fp16_pieces(g, 2);
    case MatmulPrecision::bf16:
      return gemm_bf16_pieces(g, 1);
    case MatmulPrecision::split_bf16:
      return gemm_bf16_pieces(g, 3);
    case MatmulPrecision::fp32:
      break;
  }
}

void gemm_bf16(const GemmArgs& g) {
  if (g.m == 0 || g.n == 0) return;
  if (g.k == 0) return scale_c<BFloat16>(g);
  bf16_matmul(g, true);
}

void gemm_f16(const GemmArgs& g) {
  if (g.m == 0 || g.n == 0) return;
  if (g.k == 0) return scale_c<Half>(g);
  widened_gemm<Half>(g, true);
}

}  // namespace exadnn::cpu
