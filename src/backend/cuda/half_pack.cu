// Operand preparation for the reduced- and split-precision f32 GEMMs: f32 matrices rounded to
// packed fp16/bf16 pieces, and the beta-scaling of C when k = 0.
#include "device_types.cuh"

namespace exadnn::cuda {

namespace {

template <class H>
__device__ __forceinline__ H round_to(float x) {
  return Elem<H>::store(x);
}

// pieces: 1 = x rounded; 2 = split fp16 (hi, 2^11 residual); 3 = split bf16 (2^0, 2^8, 2^16).
template <class H>
__global__ void split_kernel(const float* src, int64_t rows, int64_t cols, int64_t ld, int pieces,
                             H* p0, H* p1, H* p2, float scale1, float scale2) {
  const int64_t n = rows * cols;
  const int64_t step = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += step) {
    const int64_t r = i / cols, c = i % cols;
    const float x = src[r * ld + c];
    const H h0 = round_to<H>(x);
    p0[i] = h0;
    if (pieces < 2) continue;
    const float rest1 = x - Elem<H>::load(h0);  // exact: h0 is x's nearest 16-bit neighbour
    const H h1 = round_to<H>(rest1 * scale1);
    p1[i] = h1;
    if (pieces < 3) continue;
    const float rest2 = rest1 - Elem<H>::load(h1) / scale1;
    p2[i] = round_to<H>(rest2 * scale2);
  }
}

template <class T>
__global__ void scale_kernel(T* c, int64_t rows, int64_t cols, int64_t ld, double beta) {
  const int64_t n = rows * cols;
  const int64_t step = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += step) {
    T* e = c + (i / cols) * ld + i % cols;
    using C = typename Elem<T>::C;
    *e = beta == 0.0
             ? Elem<T>::store(C(0))
             : Elem<T>::store(static_cast<C>(static_cast<double>(Elem<T>::load(*e)) * beta));
  }
}

}  // namespace

void launch_split_f32(const float* src, int64_t rows, int64_t cols, int64_t ld, ElemType half_type,
                      int pieces, void* const* dst) {
  const int64_t n = rows * cols;
  if (n == 0) return;
  if (half_type == ElemType::f16) {
    split_kernel<__half><<<blocks_for(n), kThreads>>>(
        src, rows, cols, ld, pieces, static_cast<__half*>(dst[0]),
        pieces > 1 ? static_cast<__half*>(dst[1]) : nullptr, nullptr, 2048.0f, 1.0f);
  } else if (half_type == ElemType::bf16) {
    split_kernel<__nv_bfloat16><<<blocks_for(n), kThreads>>>(
        src, rows, cols, ld, pieces, static_cast<__nv_bfloat16*>(dst[0]),
        pieces > 1 ? static_cast<__nv_bfloat16*>(dst[1]) : nullptr,
        pieces > 2 ? static_cast<__nv_bfloat16*>(dst[2]) : nullptr, 256.0f, 65536.0f);
  } else {
    unsupported_type("split_f32", half_type);
  }
  check_launch("split_f32");
}

void launch_scale_matrix(ElemType type, void* c, int64_t rows, int64_t cols, int64_t ld,
                         double beta) {
  const int64_t n = rows * cols;
  if (n == 0) return;
  visit_elem(type, [&](auto tag) {
    using T = decltype(tag);
    if constexpr (!kFloating<T>) {
      unsupported_type("scale_matrix", type);
    } else {
      scale_kernel<T><<<blocks_for(n), kThreads>>>(static_cast<T*>(c), rows, cols, ld, beta);
    }
  });
  check_launch("scale_matrix");
}

}  // namespace exadnn::cuda
