// Device-side element types for the .cu files: the compute type of each element type (float for
// the 16-bit floats, as on the CPU), loads/stores through it, math overloads, and the launch
// geometry of grid-stride loops.
#pragma once

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <algorithm>
#include <cstdint>
#include <type_traits>

#include "kernel_args.h"

namespace exadnn::cuda {

inline constexpr int kThreads = 256;

/// Blocks for a grid-stride loop over n elements (capped; the loop covers the rest).
inline unsigned blocks_for(int64_t n) {
  return static_cast<unsigned>(std::min<int64_t>((n + kThreads - 1) / kThreads, int64_t{1} << 20));
}

/// Arithmetic type of an element type and the conversions to and from it.
template <class T>
struct Elem {
  using C = T;
  __host__ __device__ __forceinline__ static C load(T x) { return x; }
  __host__ __device__ __forceinline__ static T store(C x) { return x; }
};
template <>
struct Elem<__half> {
  using C = float;
  __host__ __device__ __forceinline__ static float load(__half x) { return __half2float(x); }
  __host__ __device__ __forceinline__ static __half store(float x) { return __float2half_rn(x); }
};
template <>
struct Elem<__nv_bfloat16> {
  using C = float;
  __host__ __device__ __forceinline__ static float load(__nv_bfloat16 x) {
    return __bfloat162float(x);
  }
  __host__ __device__ __forceinline__ static __nv_bfloat16 store(float x) {
    return __float2bfloat16_rn(x);
  }
};

template <class T>
inline constexpr bool kFloating = std::is_floating_point_v<typename Elem<T>::C>;

// Math in the compute type (float or double).
__device__ __forceinline__ float d_exp(float x) {
  return expf(x);
}
__device__ __forceinline__ double d_exp(double x) {
  return exp(x);
}
__device__ __forceinline__ float d_log(float x) {
  return logf(x);
}
__device__ __forceinline__ double d_log(double x) {
  return log(x);
}
__device__ __forceinline__ float d_sqrt(float x) {
  return sqrtf(x);
}
__device__ __forceinline__ double d_sqrt(double x) {
  return sqrt(x);
}
__device__ __forceinline__ float d_tanh(float x) {
  return tanhf(x);
}
__device__ __forceinline__ double d_tanh(double x) {
  return tanh(x);
}
__device__ __forceinline__ float d_pow(float x, float y) {
  return powf(x, y);
}
__device__ __forceinline__ double d_pow(double x, double y) {
  return pow(x, y);
}

/// Calls f(T{}) with the C++/CUDA type of an element type code.
template <class F>
void visit_elem(ElemType t, F&& f) {
  switch (t) {
    case ElemType::f32:
      return f(float{});
    case ElemType::f64:
      return f(double{});
    case ElemType::f16:
      return f(__half{});
    case ElemType::bf16:
      return f(__nv_bfloat16{});
    case ElemType::i32:
      return f(int32_t{});
    case ElemType::i64:
      return f(int64_t{});
    case ElemType::u8:
      return f(uint8_t{});
    case ElemType::boolean:
      return f(bool{});
  }
}

/// N operands of an elementwise kernel, passed by value.
template <int N>
struct Operands {
  Operand op[N];
};

/// Element offsets of linear index i (row-major over s) in each of N operands.
template <int N>
__device__ __forceinline__ void element_offsets(const IterShape& s, const Operands<N>& ops,
                                                int64_t i, int64_t (&off)[N]) {
  for (int k = 0; k < N; ++k) off[k] = 0;
  for (int d = s.ndim - 1; d >= 0; --d) {
    const int64_t size = s.size[d];
    const int64_t idx = i % size;
    i /= size;
    for (int k = 0; k < N; ++k) off[k] += idx * ops.op[k].stride[d];
  }
}

/// Grid-stride loop over s calling f(ops, off) for every element.
template <int N, class F>
__global__ void elementwise_kernel(IterShape s, Operands<N> ops, F f) {
  const int64_t step = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < s.numel;
       i += step) {
    int64_t off[N];
    element_offsets(s, ops, i, off);
    f(ops, off);
  }
}

/// Folds v across the block (blockDim.x == kThreads) with `fold`; every thread gets the result.
template <class A, class Fold>
__device__ A block_fold(A v, Fold fold) {
  __shared__ A shared[kThreads];
  shared[threadIdx.x] = v;
  __syncthreads();
  for (int width = kThreads / 2; width > 0; width /= 2) {
    if (threadIdx.x < width)
      shared[threadIdx.x] = fold(shared[threadIdx.x], shared[threadIdx.x + width]);
    __syncthreads();
  }
  const A folded = shared[0];
  __syncthreads();  // shared is reused by the block's next row
  return folded;
}

/// Launches elementwise_kernel on the default stream and checks the launch.
template <int N, class F>
void launch_elementwise(const IterShape& s, const Operands<N>& ops, F f, const char* what) {
  if (s.numel == 0) return;
  elementwise_kernel<N, F><<<blocks_for(s.numel), kThreads>>>(s, ops, f);
  check_launch(what);
}

}  // namespace exadnn::cuda
