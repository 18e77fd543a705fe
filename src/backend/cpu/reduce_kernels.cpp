// CPU reductions: sum, max, min over trailing axes, and argmax/argmin over the last axis.
#include <cmath>
#include <limits>
#include <type_traits>
#include <vector>

#include "exadnn/backend/kernels.h"
#include "loops.h"

namespace exadnn::cpu {

namespace {

// A run of axes with element strides, size-1 axes dropped and contiguous neighbours merged.
struct Axes {
  int64_t n = 0;
  int64_t shape[kMaxDims] = {};
  int64_t stride[kMaxDims] = {};

  Axes(const Tensor& t, int64_t begin, int64_t end) {
    for (int64_t d = begin; d < end; ++d) {
      const int64_t size = t.shape()[d], st = t.strides()[d];
      if (size == 1) continue;
      if (n > 0 && stride[n - 1] == st * size) {
        shape[n - 1] *= size;
        stride[n - 1] = st;
      } else {
        shape[n] = size;
        stride[n] = st;
        ++n;
      }
    }
  }
  int64_t numel() const {
    int64_t p = 1;
    for (int64_t i = 0; i < n; ++i) p *= shape[i];
    return p;
  }
  // Element offset of linear index `i` (row-major over these axes).
  int64_t offset(int64_t i) const {
    int64_t off = 0;
    for (int64_t d = n - 1; d >= 0; --d) {
      off += (i % shape[d]) * stride[d];
      i /= shape[d];
    }
    return off;
  }
  bool is_unit_stride_row() const { return n == 1 && stride[0] == 1; }
};

// Accumulation type: double for floating types, int64 for integers.
template <class T>
using sum_acc_t = std::conditional_t<std::is_floating_point_v<compute_t<T>>, double, int64_t>;

struct SumOp {
  template <class A, class V>
  static A step(A acc, V v) {
    return acc + static_cast<A>(v);
  }
};
struct MaxOp {
  template <class A, class V>
  static A step(A acc, V v) {
    return (v > acc || v != v) ? static_cast<A>(v) : acc;
  }
};
struct MinOp {
  template <class A, class V>
  static A step(A acc, V v) {
    return (v < acc || v != v) ? static_cast<A>(v) : acc;
  }
};

// out[k] = fold(Op, in[k, r] over r); `Acc` is the accumulator type. `first_is_init` folds from
// the first element (max/min) instead of from zero (sum).
template <class T, class Acc, class Op, bool first_is_init>
void reduce(const Tensor& out, const Tensor& in, int64_t reduced_dims) {
  const int64_t nk = in.dim() - reduced_dims;
  const Axes kept(in, 0, nk), red(in, nk, in.dim());
  const int64_t kn = kept.numel(), rn = red.numel();
  const T* src = static_cast<const T*>(in.data_ptr());
  T* dst = static_cast<T*>(out.data_ptr());
  const int threads = kn * rn >= kParallelGrain ? omp_get_max_threads() : 1;

  if (kept.is_unit_stride_row() && !red.is_unit_stride_row() && kn >= 16) {
    // Column reduction: kept axis is dense, reduce across rows; vectorises over columns.
    const int64_t chunk = (kn + threads - 1) / threads;
#pragma omp parallel for num_threads(threads) if (threads > 1)
    for (int t = 0; t < threads; ++t) {
      const int64_t c0 = t * chunk, c1 = std::min(kn, c0 + chunk);
      if (c0 >= c1) continue;
      std::vector<Acc> acc(static_cast<size_t>(c1 - c0));
      for (int64_t r = 0; r < rn; ++r) {
        const T* row = src + red.offset(r);
        for (int64_t c = c0; c < c1; ++c) {
          const auto v = compute_t<T>(row[c]);
          acc[c - c0] = (first_is_init && r == 0) ? static_cast<Acc>(v) : Op::step(acc[c - c0], v);
        }
      }
      for (int64_t c = c0; c < c1; ++c) dst[c] = static_cast<T>(acc[c - c0]);
    }
    return;
  }
#pragma omp parallel for num_threads(threads) if (threads > 1) schedule(static)
  for (int64_t k = 0; k < kn; ++k) {
    const T* base = src + kept.offset(k);
    Acc acc = first_is_init ? static_cast<Acc>(compute_t<T>(base[red.offset(0)])) : Acc(0);
    if (red.is_unit_stride_row()) {
      for (int64_t r = first_is_init ? 1 : 0; r < rn; ++r)
        acc = Op::step(acc, compute_t<T>(base[r]));
    } else {
      for (int64_t r = first_is_init ? 1 : 0; r < rn; ++r)
        acc = Op::step(acc, compute_t<T>(base[red.offset(r)]));
    }
    dst[k] = static_cast<T>(acc);
  }
}

// out[k] = index of the max (Greater) or min over the last axis; NaN counts as the extreme.
template <class T, bool is_max>
void arg_reduce(const Tensor& out, const Tensor& in) {
  const int64_t nk = in.dim() - 1;
  const Axes kept(in, 0, nk);
  const int64_t kn = kept.numel(), len = in.shape()[nk], stride = in.strides()[nk];
  const T* src = static_cast<const T*>(in.data_ptr());
  int64_t* dst = static_cast<int64_t*>(out.data_ptr());
  const int threads = kn * len >= kParallelGrain ? omp_get_max_threads() : 1;
#pragma omp parallel for num_threads(threads) if (threads > 1)
  for (int64_t k = 0; k < kn; ++k) {
    const T* base = src + kept.offset(k);
    auto best = compute_t<T>(base[0]);
    int64_t best_i = 0;
    for (int64_t i = 1; i < len && best == best; ++i) {
      const auto v = compute_t<T>(base[i * stride]);
      if ((is_max ? v > best : v < best) || v != v) {
        best = v;
        best_i = i;
      }
    }
    dst[k] = best_i;
  }
}

template <class T>
void register_for(KernelRegistry& r, DType dtype) {
  using C = compute_t<T>;
  if constexpr (!std::is_same_v<T, bool>) {
    put<ReduceKernel>(r, OpId::sum, dtype, &reduce<T, sum_acc_t<T>, SumOp, false>);
    put<ReduceKernel>(r, OpId::max, dtype, &reduce<T, C, MaxOp, true>);
    put<ReduceKernel>(r, OpId::min, dtype, &reduce<T, C, MinOp, true>);
    put<ArgReduceKernel>(r, OpId::argmax, dtype, &arg_reduce<T, true>);
    put<ArgReduceKernel>(r, OpId::argmin, dtype, &arg_reduce<T, false>);
  }
}

}  // namespace

void register_reduce_kernels(KernelRegistry& r) {
  for (int t = 0; t < kDTypeCount; ++t) {
    const DType dtype = static_cast<DType>(t);
    visit_dtype(dtype, [&](auto tag) { register_for<decltype(tag)>(r, dtype); });
  }
}

}  // namespace exadnn::cpu
