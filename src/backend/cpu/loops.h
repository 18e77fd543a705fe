// Strided N-operand iteration for CPU kernels (internal to the CPU backend).
//
// All operands share one iteration shape (the output's); each has its own byte strides (0 on
// broadcast axes). Adjacent axes that are contiguous for every operand are merged, so a dense
// elementwise op becomes one flat loop the compiler vectorises. Large loops are split across the
// OpenMP threads by outer index.
#pragma once

#include <omp.h>

#include <array>
#include <cstdint>
#include <type_traits>

#include "exadnn/backend/dispatch.h"
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
        strides[i][kept] = operands[i]->strides()[d] *
                           static_cast<int64_t>(dtype_size(operands[i]->dtype()));
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
          *reinterpret_cast<TOut*>(p[0] + i * s[0]) = static_cast<TOut>(
              f(compute_t<TIn>(*reinterpret_cast<const TIn*>(p[1] + i * s[1])),
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
