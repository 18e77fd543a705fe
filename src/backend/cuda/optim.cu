// Fused optimizer updates on the GPU: one thread per element, the per-element arithmetic of the
// CPU kernels (src/backend/cpu/optim_kernels.cpp, PyTorch's single-tensor order), in T = float
// or double. The configuration flags are uniform across a launch, so their branches cost nothing.
#include "device_types.cuh"

namespace exadnn::cuda {

namespace {

// Scalars of an update converted once to T.
template <class T>
__device__ __forceinline__ T as(double v) {
  return static_cast<T>(v);
}

template <class T>
__global__ void sgd_kernel(T* p, const T* g, T* buf, int64_t n, SgdArgs a) {
  const int64_t step = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += step) {
    T d = as<T>(a.sign) * g[i];
    if (a.has_wd) d = d + as<T>(a.wd) * p[i];
    if (a.has_momentum) {
      const T b = a.first ? d : buf[i] * as<T>(a.momentum) + as<T>(a.one_minus_dampening) * d;
      buf[i] = b;
      d = a.nesterov ? d + as<T>(a.momentum) * b : b;
    }
    p[i] = p[i] + as<T>(a.neg_lr) * d;
  }
}

template <class T>
__global__ void adam_kernel(T* p, const T* g, T* m, T* v, T* vmax, int64_t n, AdamArgs a) {
  const int64_t step = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += step) {
    T gi = as<T>(a.sign) * g[i];
    if (a.l2) gi = gi + as<T>(a.wd) * p[i];
    if (a.decoupled) p[i] = p[i] * as<T>(a.decay);
    m[i] = m[i] * as<T>(a.beta1) + as<T>(a.one_minus_beta1) * gi;
    const T vi = v[i] * as<T>(a.beta2) + (as<T>(a.one_minus_beta2) * gi) * gi;
    v[i] = vi;
    T radicand = vi;
    if (a.amsgrad) {
      const T old = vmax[i];
      radicand = (vi > old || vi != vi) ? vi : old;  // NaN-propagating max
      vmax[i] = radicand;
    }
    const T denom = d_sqrt(radicand) / as<T>(a.bc2_sqrt) + as<T>(a.eps);
    p[i] = p[i] + (as<T>(a.neg_step_size) * m[i]) / denom;
  }
}

template <class T>
__global__ void adagrad_kernel(T* p, const T* g, T* sum, int64_t n, AdagradArgs a) {
  const int64_t step = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += step) {
    T gi = as<T>(a.sign) * g[i];
    if (a.has_wd) gi = gi + as<T>(a.wd) * p[i];
    const T si = sum[i] + gi * gi;
    sum[i] = si;
    const T std_dev = d_sqrt(si) + as<T>(a.eps);
    p[i] = p[i] + (as<T>(a.neg_clr) * gi) / std_dev;
  }
}

template <class T>
__global__ void rmsprop_kernel(T* p, const T* g, T* sq, T* buf, T* ga, int64_t n, RmspropArgs a) {
  const int64_t step = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += step) {
    T gi = as<T>(a.sign) * g[i];
    if (a.has_wd) gi = gi + as<T>(a.wd) * p[i];
    const T si = sq[i] * as<T>(a.alpha) + (as<T>(a.one_minus_alpha) * gi) * gi;
    sq[i] = si;
    T radicand = si;
    if (a.centered) {
      const T ai = ga[i] * as<T>(a.alpha) + as<T>(a.one_minus_alpha) * gi;
      ga[i] = ai;
      radicand = si + (-ai) * ai;
    }
    const T avg = d_sqrt(radicand) + as<T>(a.eps);
    if (a.has_momentum) {
      const T bi = buf[i] * as<T>(a.momentum) + gi / avg;
      buf[i] = bi;
      p[i] = p[i] + as<T>(a.neg_lr) * bi;
    } else {
      p[i] = p[i] + (as<T>(a.neg_lr) * gi) / avg;
    }
  }
}

// Calls f(T{}) for f32 and f64; other types have no fused update.
template <class F>
void visit_update_type(ElemType type, const char* what, F&& f) {
  if (type == ElemType::f32) return f(float{});
  if (type == ElemType::f64) return f(double{});
  unsupported_type(what, type);
}

}  // namespace

void launch_sgd_step(ElemType type, void* param, const void* grad, void* buf, int64_t n,
                     const SgdArgs& a) {
  if (n == 0) return;
  visit_update_type(type, "sgd_step", [&](auto tag) {
    using T = decltype(tag);
    sgd_kernel<T><<<blocks_for(n), kThreads>>>(static_cast<T*>(param), static_cast<const T*>(grad),
                                               static_cast<T*>(buf), n, a);
  });
  check_launch("sgd_step");
}

void launch_adam_step(ElemType type, void* param, const void* grad, void* m, void* v, void* vmax,
                      int64_t n, const AdamArgs& a) {
  if (n == 0) return;
  visit_update_type(type, "adam_step", [&](auto tag) {
    using T = decltype(tag);
    adam_kernel<T><<<blocks_for(n), kThreads>>>(static_cast<T*>(param), static_cast<const T*>(grad),
                                                static_cast<T*>(m), static_cast<T*>(v),
                                                static_cast<T*>(vmax), n, a);
  });
  check_launch("adam_step");
}

void launch_adagrad_step(ElemType type, void* param, const void* grad, void* sum, int64_t n,
                         const AdagradArgs& a) {
  if (n == 0) return;
  visit_update_type(type, "adagrad_step", [&](auto tag) {
    using T = decltype(tag);
    adagrad_kernel<T><<<blocks_for(n), kThreads>>>(
        static_cast<T*>(param), static_cast<const T*>(grad), static_cast<T*>(sum), n, a);
  });
  check_launch("adagrad_step");
}

void launch_rmsprop_step(ElemType type, void* param, const void* grad, void* square_avg,
                         void* momentum_buffer, void* grad_avg, int64_t n, const RmspropArgs& a) {
  if (n == 0) return;
  visit_update_type(type, "rmsprop_step", [&](auto tag) {
    using T = decltype(tag);
    rmsprop_kernel<T><<<blocks_for(n), kThreads>>>(
        static_cast<T*>(param), static_cast<const T*>(grad), static_cast<T*>(square_avg),
        static_cast<T*>(momentum_buffer), static_cast<T*>(grad_avg), n, a);
  });
  check_launch("rmsprop_step");
}

}  // namespace exadnn::cuda
