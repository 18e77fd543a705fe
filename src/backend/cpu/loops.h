// Strided N-operand iteration for CPU kernels (internal to the CPU backend).
//
// All operands share one iteration shape (the output's); each has its own byte strides (0 on
// broadcast axes). Adjacent axes that are contiguous for every operand are merged, so a dense
// elementwise op becomes one flat loop the compiler vectorises. Large loops are split across the
// OpenMP threads by outer index.
#pragma once

#include <omp.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <type_traits>

#include "exadnn/backend/dispatch.h"
#include "exadnn/core/half_convert.h"
#include "exadnn/core/tensor.h"

namespace exadnn::cpu {

/// Elements below which a loop stays on one thread.
inline constexpr int64_t kParallelGrain = 32768;

/// Arithmetic type used for an element type: float for the 16-bit floats, else itself.
template <class T>
using compute_t =
    std::conditional_t<std::is_same_v<T, Half> || std::is_same_v<T, BFloat16>, float, T>;

/// Iteration space of N operands over one shape, axes merged where possible.
template <int N>
struct StridedLoop {
  int64_t ndim = 0;
  int64_t shape[kMaxDims] = {};
  int64_t strides[N][kMaxDims] = {};  // bytes
  char* base[N] = {};

  /// Operands must already have `shape` (broadcast views with stride 0 are fine).
  StridedLoop(const Shape& iter_shape, const std::array<const Tensor*, N>& operands) {
    int64_t kept = 0;
    for (int64_t d = 0; d < iter_shape.size(); ++d) {
      if (iter_shape[d] == 1) continue;  // size-1 axes contribute nothing
      shape[kept] = iter_shape[d];
      for (int i = 0; i < N; ++i)
        strides[i][kept] =
            operands[i]->strides()[d] * static_cast<int64_t>(dtype_size(operands[i]->dtype()));
      ++kept;
    }
    ndim = 0;
    for (int64_t d = 0; d < kept; ++d) {  // merge axis d into the previous one when possible
      bool mergeable = ndim > 0;
      for (int i = 0; i < N && mergeable; ++i)
        mergeable = strides[i][ndim - 1] == strides[i][d] * shape[d];
      if (mergeable) {
        shape[ndim - 1] *= shape[d];
        for (int i = 0; i < N; ++i) strides[i][ndim - 1] = strides[i][d];
      } else {
        shape[ndim] = shape[d];
        for (int i = 0; i < N; ++i) strides[i][ndim] = strides[i][d];
        ++ndim;
      }
    }
    if (ndim == 0) {  // a single element
      shape[0] = 1;
      for (int i = 0; i < N; ++i) strides[i][0] = 0;
      ndim = 1;
    }
    for (int i = 0; i < N; ++i) base[i] = static_cast<char*>(operands[i]->data_ptr());
  }

  int64_t inner() const { return shape[ndim - 1]; }
  int64_t outer() const {
    int64_t n = 1;
    for (int64_t d = 0; d + 1 < ndim; ++d) n *= shape[d];
    return n;
  }
  /// Pointers to the first element of outer row `row`.
  void row_pointers(int64_t row, char* ptrs[N]) const {
    for (int i = 0; i < N; ++i) ptrs[i] = base[i];
    for (int64_t d = ndim - 2; d >= 0; --d) {
      const int64_t idx = row % shape[d];
      row /= shape[d];
      for (int i = 0; i < N; ++i) ptrs[i] += idx * strides[i][d];
    }
  }

  /// Calls inner_fn(char* ptrs[N], const int64_t inner_strides[N], int64_t count) over every
  /// stretch of the innermost axis, in parallel when the loop is large.
  template <class InnerFn>
  void run(InnerFn&& inner_fn) const {
    const int64_t rows = outer();
    const int64_t n = inner();
    int64_t inner_strides[N];
    for (int i = 0; i < N; ++i) inner_strides[i] = strides[i][ndim - 1];
    const int64_t total = rows * n;
    const int threads = total >= kParallelGrain ? omp_get_max_threads() : 1;
    if (threads == 1) {  // no OpenMP region at all: entering one costs more than a small op
      for (int64_t r = 0; r < rows; ++r) {
        char* ptrs[N];
        row_pointers(r, ptrs);
        inner_fn(ptrs, inner_strides, n);
      }
      return;
    }
    if (rows == 1) {  // split one long row into chunks
      const int64_t chunk = (n + threads - 1) / threads;
#pragma omp parallel for num_threads(threads) schedule(static)
      for (int t = 0; t < threads; ++t) {
        const int64_t begin = t * chunk;
        const int64_t count = std::min(chunk, n - begin);
        if (count <= 0) continue;
        char* ptrs[N];
        for (int i = 0; i < N; ++i) ptrs[i] = base[i] + begin * inner_strides[i];
        inner_fn(ptrs, inner_strides, count);
      }
      return;
    }
#pragma omp parallel for num_threads(threads) schedule(static)
    for (int64_t r = 0; r < rows; ++r) {
      char* ptrs[N];
      row_pointers(r, ptrs);
      inner_fn(ptrs, inner_strides, n);
    }
  }
};

/// The 16-bit float storage types (computed in float).
template <class T>
inline constexpr bool is_half_storage = std::is_same_v<T, Half> || std::is_same_v<T, BFloat16>;

/// Whether 16-bit float bits b (T: Half or BFloat16) encode a value > 0 (+0, negatives and NaN do
/// not): relu and its gradient select on the bits, with no conversions.
template <class T>
constexpr bool positive_bits(uint16_t b) {
  constexpr uint16_t inf = std::is_same_v<T, BFloat16> ? 0x7f80 : 0x7c00;
  return static_cast<uint16_t>(b - 1u) < inf;  // b in [1, inf]
}

namespace loops_detail {

template <class F, class C, int NIn>
struct MapResult;
template <class F, class C>
struct MapResult<F, C, 1> {
  using type = std::invoke_result_t<F&, C>;
};
template <class F, class C>
struct MapResult<F, C, 2> {
  using type = std::invoke_result_t<F&, C, C>;
};

// A dense run with 16-bit operands: inputs widened a block at a time by the vectorised bulk
// conversions (core/half_convert.h, the same bits as half.h), f applied in float (a loop the
// compiler vectorises), results rounded back in bulk. Converting element by element through
// half.h is scalar and branchy: it made bf16 relu slower than f32 relu. Inputs may alias the
// output element for element (a block is read before it is written).
template <class TOut, class TIn, int NIn, class F>
void map_dense_half(TOut* o, const std::array<const TIn*, NIn>& in, int64_t n, F& f) {
  using C = compute_t<TIn>;
  using R = typename MapResult<F, C, NIn>::type;
  constexpr int64_t kBlock = 256;
  C a[NIn][kBlock];
  R r[kBlock];
  for (int64_t i0 = 0; i0 < n; i0 += kBlock) {
    const int64_t m = std::min(kBlock, n - i0);
    for (int k = 0; k < NIn; ++k) {
      if constexpr (is_half_storage<TIn>)
        convert(in[k] + i0, a[k], m);
      else
        for (int64_t i = 0; i < m; ++i) a[k][i] = static_cast<C>(in[k][i0 + i]);
    }
    if constexpr (NIn == 1)
      for (int64_t i = 0; i < m; ++i) r[i] = f(a[0][i]);
    else
      for (int64_t i = 0; i < m; ++i) r[i] = f(a[0][i], a[1][i]);
    if constexpr (is_half_storage<TOut> && std::is_same_v<R, float>)
      convert(r, o + i0, m);
    else
      for (int64_t i = 0; i < m; ++i) o[i0 + i] = static_cast<TOut>(r[i]);
  }
}

}  // namespace loops_detail

/// Elementwise map out = f(in...) over typed operands, with dense and scalar-broadcast fast paths.
/// Out has type TOut, inputs type TIn; f takes and returns compute types.
template <class TOut, class TIn, int NIn, class F>
void map_elements(const Tensor& out, const std::array<const Tensor*, NIn>& inputs, F f) {
  std::array<const Tensor*, NIn + 1> all;
  all[0] = &out;
  for (int i = 0; i < NIn; ++i) all[i + 1] = inputs[i];
  StridedLoop<NIn + 1> loop(out.shape(), all);
  loop.run([&](char** p, const int64_t* s, int64_t n) {
    TOut* o = reinterpret_cast<TOut*>(p[0]);
    if constexpr (NIn == 1) {
      const TIn* a = reinterpret_cast<const TIn*>(p[1]);
      if (s[0] == sizeof(TOut) && s[1] == sizeof(TIn)) {
        if constexpr (is_half_storage<TIn> || is_half_storage<TOut>)
          return loops_detail::map_dense_half<TOut, TIn, 1>(o, {a}, n, f);
        for (int64_t i = 0; i < n; ++i) o[i] = static_cast<TOut>(f(compute_t<TIn>(a[i])));
      } else {
        for (int64_t i = 0; i < n; ++i)
          *reinterpret_cast<TOut*>(p[0] + i * s[0]) =
              static_cast<TOut>(f(compute_t<TIn>(*reinterpret_cast<const TIn*>(p[1] + i * s[1]))));
      }
    } else if constexpr (NIn == 2) {
      const TIn* a = reinterpret_cast<const TIn*>(p[1]);
      const TIn* b = reinterpret_cast<const TIn*>(p[2]);
      constexpr int64_t so = sizeof(TOut), si = sizeof(TIn);
      if (s[0] == so && s[1] == si && s[2] == si) {
        if constexpr (is_half_storage<TIn> || is_half_storage<TOut>)
          return loops_detail::map_dense_half<TOut, TIn, 2>(o, {a, b}, n, f);
        for (int64_t i = 0; i < n; ++i)
          o[i] = static_cast<TOut>(f(compute_t<TIn>(a[i]), compute_t<TIn>(b[i])));
      } else if (s[0] == so && s[1] == si && s[2] == 0) {
        const compute_t<TIn> bv = compute_t<TIn>(*b);
        for (int64_t i = 0; i < n; ++i) o[i] = static_cast<TOut>(f(compute_t<TIn>(a[i]), bv));
      } else if (s[0] == so && s[1] == 0 && s[2] == si) {
        const compute_t<TIn> av = compute_t<TIn>(*a);
        for (int64_t i = 0; i < n; ++i) o[i] = static_cast<TOut>(f(av, compute_t<TIn>(b[i])));
      } else {
        for (int64_t i = 0; i < n; ++i)
          *reinterpret_cast<TOut*>(p[0] + i * s[0]) =
              static_cast<TOut>(f(compute_t<TIn>(*reinterpret_cast<const TIn*>(p[1] + i * s[1])),
                                  compute_t<TIn>(*reinterpret_cast<const TIn*>(p[2] + i * s[2]))));
      }
    }
  });
}

/// Registers `kernel` for `op` on the CPU row of the table.
template <class Signature>
void put(KernelRegistry& registry, OpId op, DType dtype, Signature* kernel) {
  registry.add(op, DeviceKind::cpu, dtype, reinterpret_cast<AnyKernel>(kernel));
}

}  // namespace exadnn::cpu
