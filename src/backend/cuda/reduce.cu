// Reductions over the last axes (sum, max, min), arg-reductions over the last axis, and the sum
// of squares of gradient clipping. One block of kThreads reduces one output row (a grid-stride
// loop over rows); each thread folds a strided slice of the row, then the block folds the
// threads' values in shared memory in a fixed order, so results do not depend on timing.
#include <limits>

#include "device_types.cuh"

namespace exadnn::cuda {

namespace {

// Element offset of linear index i (row-major over s) in operand o.
__device__ __forceinline__ int64_t offset_of(const IterShape& s, const Operand& o, int64_t i) {
  int64_t off = 0;
  for (int d = s.ndim - 1; d >= 0; --d) {
    off += (i % s.size[d]) * o.stride[d];
    i /= s.size[d];
  }
  return off;
}

// Accumulator and fold of each reduction, over the compute type C.
template <class C>
using SumAcc = std::conditional_t<std::is_floating_point_v<C>, double, int64_t>;

template <class C>
struct SumFold {
  using A = SumAcc<C>;
  __device__ static A identity() { return A(0); }
  __device__ A operator()(A a, A b) const { return a + b; }
};
template <class C>
struct MaxFold {  // NaN propagates
  using A = C;
  __device__ static A identity() {
    if constexpr (std::is_floating_point_v<C>) {
      return -std::numeric_limits<C>::infinity();
    } else {
      return std::numeric_limits<C>::lowest();
    }
  }
  __device__ A operator()(A a, A b) const { return (b > a || b != b) ? b : a; }
};
template <class C>
struct MinFold {
  using A = C;
  __device__ static A identity() {
    if constexpr (std::is_floating_point_v<C>) {
      return std::numeric_limits<C>::infinity();
    } else {
      return std::numeric_limits<C>::max();
    }
  }
  __device__ A operator()(A a, A b) const { return (b < a || b != b) ? b : a; }
};

template <class T, class Fold>
__global__ void reduce_rows(IterShape rows, Operand row_in, IterShape cols, Operand col_in,
                            T* out) {
  using E = Elem<T>;
  using A = typename Fold::A;
  const Fold fold;
  for (int64_t r = blockIdx.x; r < rows.numel; r += gridDim.x) {
    const T* row = static_cast<const T*>(row_in.data) + offset_of(rows, row_in, r);
    A acc = Fold::identity();
    for (int64_t j = threadIdx.x; j < cols.numel; j += blockDim.x)
      acc = fold(acc, static_cast<A>(E::load(row[offset_of(cols, col_in, j)])));
    acc = block_fold(acc, fold);
    if (threadIdx.x == 0) out[r] = E::store(static_cast<typename E::C>(acc));
  }
}

// (value, index) of an arg-reduction; index -1 is "nothing yet".
template <class C>
struct ArgPair {
  C value;
  int64_t index;
};

// Keeps the better pair: NaN wins, then the larger (smaller) value, then the first index.
template <class C, bool kGreatest>
struct ArgFold {
  __device__ ArgPair<C> operator()(ArgPair<C> a, ArgPair<C> b) const {
    if (b.index < 0) return a;
    if (a.index < 0) return b;
    const bool an = a.value != a.value, bn = b.value != b.value;
    bool take_b;
    if (an || bn) {
      take_b = bn && (!an || b.index < a.index);
    } else if (a.value == b.value) {
      take_b = b.index < a.index;
    } else {
      take_b = kGreatest ? b.value > a.value : b.value < a.value;
    }
    return take_b ? b : a;
  }
};

template <class T, bool kGreatest>
__global__ void arg_reduce_rows(IterShape rows, Operand row_in, int64_t cols, int64_t col_stride,
                                int64_t* out) {
  using E = Elem<T>;
  using C = typename E::C;
  const ArgFold<C, kGreatest> fold;
  for (int64_t r = blockIdx.x; r < rows.numel; r += gridDim.x) {
    const T* row = static_cast<const T*>(row_in.data) + offset_of(rows, row_in, r);
    ArgPair<C> acc{C(0), -1};
    for (int64_t j = threadIdx.x; j < cols; j += blockDim.x)
      acc = fold(acc, ArgPair<C>{E::load(row[j * col_stride]), j});
    acc = block_fold(acc, fold);
    if (threadIdx.x == 0) out[r] = acc.index < 0 ? 0 : acc.index;
  }
}

// First pass: block b sums the squares of its grid-stride slice (a fixed order).
template <class T>
__global__ void sum_squares_partial(const T* x, int64_t n, double* partial) {
  double acc = 0.0;
  const int64_t step = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += step) {
    const double v = static_cast<double>(Elem<T>::load(x[i]));
    acc += v * v;
  }
  acc = block_fold(acc, SumFold<double>{});
  if (threadIdx.x == 0) partial[blockIdx.x] = acc;
}

// Second pass: one block sums the partials into partial[count].
__global__ void sum_partials(double* partial, int count) {
  double acc = 0.0;
  for (int i = threadIdx.x; i < count; i += blockDim.x) acc += partial[i];
  acc = block_fold(acc, SumFold<double>{});
  if (threadIdx.x == 0) partial[count] = acc;
}

unsigned row_blocks(int64_t rows) {
  return static_cast<unsigned>(std::min<int64_t>(rows, int64_t{1} << 20));
}

}  // namespace

void launch_reduce(ReduceOp op, ElemType type, const IterShape& row_shape, Operand row_in,
                   const IterShape& col_shape, Operand col_in, void* out) {
  if (row_shape.numel == 0) return;
  visit_elem(type, [&](auto tag) {
    using T = decltype(tag);
    using C = typename Elem<T>::C;
    if constexpr (std::is_same_v<T, bool>) {
      unsupported_type("reduction", type);
    } else {
      T* o = static_cast<T*>(out);
      const unsigned blocks = row_blocks(row_shape.numel);
      switch (op) {
        case ReduceOp::sum:
          reduce_rows<T, SumFold<C>><<<blocks, kThreads>>>(row_shape, row_in, col_shape, col_in, o);
          break;
        case ReduceOp::max:
          reduce_rows<T, MaxFold<C>><<<blocks, kThreads>>>(row_shape, row_in, col_shape, col_in, o);
          break;
        case ReduceOp::min:
          reduce_rows<T, MinFold<C>><<<blocks, kThreads>>>(row_shape, row_in, col_shape, col_in, o);
          break;
      }
      check_launch("reduction");
    }
  });
}

void launch_arg_reduce(bool greatest, ElemType type, const IterShape& row_shape, Operand row_in,
                       int64_t cols, int64_t col_stride, void* out) {
  if (row_shape.numel == 0) return;
  visit_elem(type, [&](auto tag) {
    using T = decltype(tag);
    if constexpr (std::is_same_v<T, bool>) {
      unsupported_type("arg-reduction", type);
    } else {
      auto* o = static_cast<int64_t*>(out);
      const unsigned blocks = row_blocks(row_shape.numel);
      if (greatest) {
        arg_reduce_rows<T, true><<<blocks, kThreads>>>(row_shape, row_in, cols, col_stride, o);
      } else {
        arg_reduce_rows<T, false><<<blocks, kThreads>>>(row_shape, row_in, cols, col_stride, o);
      }
      check_launch("arg-reduction");
    }
  });
}

void launch_sum_squares(ElemType type, const void* x, int64_t n, double* scratch) {
  visit_elem(type, [&](auto tag) {
    using T = decltype(tag);
    if constexpr (!kFloating<T>) {
      unsupported_type("sum_squares", type);
    } else {
      sum_squares_partial<<<kSumSquaresBlocks, kThreads>>>(static_cast<const T*>(x), n, scratch);
      check_launch("sum_squares");
    }
  });
  sum_partials<<<1, kThreads>>>(scratch, kSumSquaresBlocks);
  check_launch("sum_squares (final pass)");
}

}  // namespace exadnn::cuda
