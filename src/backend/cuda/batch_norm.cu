// Batch normalisation forward and backward: one block per channel. The block folds the channel's
// sums in f64 (a fixed order: deterministic), then normalises (or differentiates) the channel's
// elements. x is [n, c, spatial]: element j of channel ch is x[((j / spatial) · c + ch) · spatial
// + j % spatial].
#include "device_types.cuh"

namespace exadnn::cuda {

namespace {

struct AddDouble {
  __device__ double operator()(double a, double b) const { return a + b; }
};

__device__ __forceinline__ int64_t bn_index(const BatchNormShape& s, int64_t ch, int64_t j) {
  return ((j / s.spatial) * s.c + ch) * s.spatial + j % s.spatial;
}

template <class T>
__global__ void bn_forward(BatchNormShape s, bool training, const T* x, const T* scale,
                           const T* shift, T* mean, T* var, T* y) {
  const int64_t m = s.n * s.spatial;
  for (int64_t ch = blockIdx.x; ch < s.c; ch += gridDim.x) {
    double mu, sigma2;
    if (training) {
      double acc = 0.0;
      for (int64_t j = threadIdx.x; j < m; j += blockDim.x) acc += x[bn_index(s, ch, j)];
      mu = block_fold(acc, AddDouble{}) / static_cast<double>(m);
      acc = 0.0;
      for (int64_t j = threadIdx.x; j < m; j += blockDim.x) {
        const double d = x[bn_index(s, ch, j)] - mu;
        acc += d * d;
      }
      sigma2 = block_fold(acc, AddDouble{}) / static_cast<double>(m);
      if (threadIdx.x == 0) {
        mean[ch] = static_cast<T>(mu);
        var[ch] = static_cast<T>(sigma2);
      }
    } else {
      mu = mean[ch];
      sigma2 = var[ch];
    }
    const T mean_t = static_cast<T>(mu);
    const T inv_std =
        static_cast<T>(1.0 / sqrt(static_cast<double>(static_cast<T>(sigma2)) + s.eps));
    const T gamma = scale ? scale[ch] : T(1);
    const T beta = shift ? shift[ch] : T(0);
    for (int64_t j = threadIdx.x; j < m; j += blockDim.x) {
      const int64_t i = bn_index(s, ch, j);
      y[i] = (x[i] - mean_t) * inv_std * gamma + beta;
    }
  }
}

template <class T>
__global__ void bn_backward(BatchNormShape s, bool training, const T* grad_y, const T* x,
                            const T* scale, const T* mean, const T* var, T* grad_x, T* grad_scale,
                            T* grad_shift) {
  const int64_t m = s.n * s.spatial;
  for (int64_t ch = blockIdx.x; ch < s.c; ch += gridDim.x) {
    const double mu = mean[ch];
    const double inv_std = 1.0 / sqrt(static_cast<double>(var[ch]) + s.eps);
    double sum_dy = 0.0, sum_dy_xhat = 0.0;
    for (int64_t j = threadIdx.x; j < m; j += blockDim.x) {
      const int64_t i = bn_index(s, ch, j);
      const double dy = grad_y[i];
      sum_dy += dy;
      sum_dy_xhat += dy * (x[i] - mu) * inv_std;
    }
    sum_dy = block_fold(sum_dy, AddDouble{});
    sum_dy_xhat = block_fold(sum_dy_xhat, AddDouble{});
    if (threadIdx.x == 0) {
      if (grad_shift) grad_shift[ch] = static_cast<T>(sum_dy);
      if (grad_scale) grad_scale[ch] = static_cast<T>(sum_dy_xhat);
    }
    const double gamma = scale ? static_cast<double>(scale[ch]) : 1.0;
    const double k = gamma * inv_std;
    const double mean_dy = sum_dy / static_cast<double>(m);
    const double mean_dy_xhat = sum_dy_xhat / static_cast<double>(m);
    for (int64_t j = threadIdx.x; j < m; j += blockDim.x) {
      const int64_t i = bn_index(s, ch, j);
      const double dy = grad_y[i];
      if (training) {
        const double xhat = (x[i] - mu) * inv_std;
        grad_x[i] = static_cast<T>(k * (dy - mean_dy - xhat * mean_dy_xhat));
      } else {
        grad_x[i] = static_cast<T>(k * dy);
      }
    }
  }
}

unsigned channel_blocks(int64_t c) {
  return static_cast<unsigned>(std::min<int64_t>(c, int64_t{1} << 20));
}

}  // namespace

void launch_batch_norm_forward(ElemType type, const BatchNormShape& s, bool training, const void* x,
                               const void* scale, const void* shift, void* mean, void* var,
                               void* y) {
  if (s.c == 0) return;
  auto run = [&](auto tag) {
    using T = decltype(tag);
    bn_forward<T><<<channel_blocks(s.c), kThreads>>>(
        s, training, static_cast<const T*>(x), static_cast<const T*>(scale),
        static_cast<const T*>(shift), static_cast<T*>(mean), static_cast<T*>(var),
        static_cast<T*>(y));
  };
  if (type == ElemType::f32) {
    run(float{});
  } else if (type == ElemType::f64) {
    run(double{});
  } else {
    unsupported_type("batch_norm", type);
  }
  check_launch("batch_norm");
}

void launch_batch_norm_backward(ElemType type, const BatchNormShape& s, bool training,
                                const void* grad_y, const void* x, const void* scale,
                                const void* mean, const void* var, void* grad_x, void* grad_scale,
                                void* grad_shift) {
  if (s.c == 0) return;
  auto run = [&](auto tag) {
    using T = decltype(tag);
    bn_backward<T><<<channel_blocks(s.c), kThreads>>>(
        s, training, static_cast<const T*>(grad_y), static_cast<const T*>(x),
        static_cast<const T*>(scale), static_cast<const T*>(mean), static_cast<const T*>(var),
        static_cast<T*>(grad_x), static_cast<T*>(grad_scale), static_cast<T*>(grad_shift));
  };
  if (type == ElemType::f32) {
    run(float{});
  } else if (type == ElemType::f64) {
    run(double{});
  } else {
    unsupported_type("batch_norm_backward", type);
  }
  check_launch("batch_norm_backward");
}

}  // namespace exadnn::cuda
