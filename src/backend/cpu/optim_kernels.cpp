// CPU fused optimizer updates (SGD, Adam/AdamW, Adagrad, RMSprop) and the sum of squares used by
// gradient clipping; f32 and f64.
//
// Each update is one pass over memory: the loop reads param, grad and state once and writes param
// and state once. Configuration switches (weight decay, momentum, Nesterov, ...) are template
// flags, so each inner loop is branch-free and the compiler vectorises it. Updates that need a
// square root work in blocks of kBlock elements: a first loop updates the state and gathers the
// radicands in an L1-resident block buffer, a SIMD square root runs over that buffer, and a second
// loop finishes the block while it is still in L1 (GCC does not vectorise std::sqrt under the
// default -fmath-errno). Above kParallelGrain elements the range is split across OpenMP threads.
#include <algorithm>
#include <cmath>
#include <type_traits>
#include <vector>

#if defined(__SSE2__)
#include <immintrin.h>
#endif

#include "exadnn/backend/optim_kernels.h"
#include "loops.h"

namespace exadnn::cpu {

namespace {

constexpr int64_t kBlock = 256;

// Calls body(begin, end) over [0, n): inline below kParallelGrain, else one chunk per thread
// (chunk starts aligned to 64 elements).
template <class F>
void parallel_range(int64_t n, F&& body) {
  const int threads = n >= kParallelGrain ? omp_get_max_threads() : 1;
  if (threads <= 1) {
    body(int64_t{0}, n);
    return;
  }
  int64_t chunk = (n + threads - 1) / threads;
  chunk = (chunk + 63) / 64 * 64;
#pragma omp parallel for num_threads(threads) schedule(static)
  for (int t = 0; t < threads; ++t) {
    const int64_t begin = t * chunk;
    const int64_t end = std::min(n, begin + chunk);
    if (begin < end) body(begin, end);
  }
}

// Calls f(std::true_type) or f(std::false_type): turns a run-time switch into a template flag.
template <class F>
void with_flag(bool flag, F&& f) {
  if (flag) {
    f(std::true_type{});
  } else {
    f(std::false_type{});
  }
}

// x[i] = sqrt(x[i]) for i < n, with SIMD square roots (correctly rounded, like std::sqrt).
inline void sqrt_block(float* x, int64_t n) {
  int64_t i = 0;
#if defined(__AVX__)
  for (; i + 8 <= n; i += 8) _mm256_storeu_ps(x + i, _mm256_sqrt_ps(_mm256_loadu_ps(x + i)));
#elif defined(__SSE2__)
  for (; i + 4 <= n; i += 4) _mm_storeu_ps(x + i, _mm_sqrt_ps(_mm_loadu_ps(x + i)));
#endif
  for (; i < n; ++i) x[i] = std::sqrt(x[i]);
}
inline void sqrt_block(double* x, int64_t n) {
  int64_t i = 0;
#if defined(__AVX__)
  for (; i + 4 <= n; i += 4) _mm256_storeu_pd(x + i, _mm256_sqrt_pd(_mm256_loadu_pd(x + i)));
#elif defined(__SSE2__)
  for (; i + 2 <= n; i += 2) _mm_storeu_pd(x + i, _mm_sqrt_pd(_mm_loadu_pd(x + i)));
#endif
  for (; i < n; ++i) x[i] = std::sqrt(x[i]);
}

// NaN-propagating maximum (torch.maximum).
template <class T>
inline T nan_max(T a, T b) {
  return (b > a || b != b) ? b : a;
}

// ---- SGD ------------------------------------------------------------------------------------

template <class T>
struct SgdConsts {
  T sign, wd, momentum, one_minus_dampening, neg_lr;
};

template <class T, bool kWd, bool kMomentum, bool kFirst, bool kNesterov>
void sgd_range(T* __restrict p, const T* __restrict g, T* __restrict buf, int64_t n,
               const SgdConsts<T>& c) {
  for (int64_t i = 0; i < n; ++i) {
    T d = c.sign * g[i];
    if constexpr (kWd) d = d + c.wd * p[i];
    if constexpr (kMomentum) {
      T b;
      if constexpr (kFirst) {
        b = d;
      } else {
        b = buf[i] * c.momentum + c.one_minus_dampening * d;
      }
      buf[i] = b;
      if constexpr (kNesterov) {
        d = d + c.momentum * b;
      } else {
        d = b;
      }
    }
    p[i] = p[i] + c.neg_lr * d;
  }
}

template <class T>
void sgd_step(const Tensor& param, const Tensor& grad, const Tensor& momentum_buffer,
              const SgdStepParams& sp) {
  const SgdConsts<T> c{static_cast<T>(sp.maximize ? -1.0 : 1.0), static_cast<T>(sp.weight_decay),
                       static_cast<T>(sp.momentum), static_cast<T>(1.0 - sp.dampening),
                       static_cast<T>(-sp.lr)};
  T* p = param.data<T>();
  const T* g = grad.data<T>();
  const bool has_momentum = sp.momentum != 0.0;
  T* buf = has_momentum ? momentum_buffer.data<T>() : nullptr;
  with_flag(sp.weight_decay != 0.0, [&](auto wd) {
    with_flag(has_momentum, [&](auto mom) {
      with_flag(has_momentum && sp.first_step, [&](auto first) {
        with_flag(has_momentum && sp.nesterov, [&](auto nesterov) {
          parallel_range(param.numel(), [&](int64_t b, int64_t e) {
            sgd_range<T, wd(), mom(), first(), nesterov()>(p + b, g + b, buf ? buf + b : nullptr,
                                                           e - b, c);
          });
        });
      });
    });
  });
}

// ---- Adam / AdamW ---------------------------------------------------------------------------

template <class T>
struct AdamConsts {
  T sign, wd, decay, beta1, one_minus_beta1, beta2, one_minus_beta2, bc2_sqrt, eps, neg_step_size;
};

template <class T, bool kL2, bool kDecoupled, bool kAmsgrad>
void adam_range(T* __restrict p, const T* __restrict g, T* __restrict m, T* __restrict v,
                T* __restrict vmax, int64_t n, const AdamConsts<T>& c) {
  alignas(64) T root[kBlock];
  for (int64_t s = 0; s < n; s += kBlock) {
    const int64_t len = std::min(kBlock, n - s);
    T* __restrict pb = p + s;
    const T* __restrict gb = g + s;
    T* __restrict mb = m + s;
    T* __restrict vb = v + s;
    for (int64_t i = 0; i < len; ++i) {
      T gi = c.sign * gb[i];
      if constexpr (kL2) gi = gi + c.wd * pb[i];
      if constexpr (kDecoupled) pb[i] = pb[i] * c.decay;
      mb[i] = mb[i] * c.beta1 + c.one_minus_beta1 * gi;
      const T vi = vb[i] * c.beta2 + (c.one_minus_beta2 * gi) * gi;
      vb[i] = vi;
      if constexpr (kAmsgrad) {
        const T mx = nan_max(vmax[s + i], vi);
        vmax[s + i] = mx;
        root[i] = mx;
      } else {
        root[i] = vi;
      }
    }
    sqrt_block(root, len);
    for (int64_t i = 0; i < len; ++i) {
      const T denom = root[i] / c.bc2_sqrt + c.eps;
      pb[i] = pb[i] + (c.neg_step_size * mb[i]) / denom;
    }
  }
}

template <class T>
void adam_step(const Tensor& param, const Tensor& grad, const Tensor& exp_avg,
               const Tensor& exp_avg_sq, const Tensor& max_exp_avg_sq, const AdamStepParams& ap) {
  // Scalars exactly as torch/optim/adam.py (single-tensor path) computes them, in double.
  const double t = static_cast<double>(ap.step);
  const double bias_correction1 = 1.0 - std::pow(ap.beta1, t);
  const double bias_correction2 = 1.0 - std::pow(ap.beta2, t);
  const double step_size = ap.lr / bias_correction1;
  const AdamConsts<T> c{static_cast<T>(ap.maximize ? -1.0 : 1.0),
                        static_cast<T>(ap.weight_decay),
                        static_cast<T>(1.0 - ap.lr * ap.weight_decay),
                        static_cast<T>(ap.beta1),
                        static_cast<T>(1.0 - ap.beta1),
                        static_cast<T>(ap.beta2),
                        static_cast<T>(1.0 - ap.beta2),
                        static_cast<T>(std::sqrt(bias_correction2)),
                        static_cast<T>(ap.eps),
                        static_cast<T>(-step_size)};
  T* p = param.data<T>();
  const T* g = grad.data<T>();
  T* m = exp_avg.data<T>();
  T* v = exp_avg_sq.data<T>();
  T* vmax = ap.amsgrad ? max_exp_avg_sq.data<T>() : nullptr;
  const bool decay = ap.weight_decay != 0.0;
  with_flag(decay && !ap.decoupled_weight_decay, [&](auto l2) {
    with_flag(decay && ap.decoupled_weight_decay, [&](auto decoupled) {
      with_flag(ap.amsgrad, [&](auto amsgrad) {
        parallel_range(param.numel(), [&](int64_t b, int64_t e) {
          adam_range<T, l2(), decoupled(), amsgrad()>(p + b, g + b, m + b, v + b,
                                                      vmax ? vmax + b : nullptr, e - b, c);
        });
      });
    });
  });
}

// ---- Adagrad --------------------------------------------------------------------------------

template <class T>
struct AdagradConsts {
  T sign, wd, eps, neg_clr;
};

template <class T, bool kWd>
void adagrad_range(T* __restrict p, const T* __restrict g, T* __restrict sum, int64_t n,
                   const AdagradConsts<T>& c) {
  alignas(64) T root[kBlock];
  alignas(64) T grad[kBlock];
  for (int64_t s = 0; s < n; s += kBlock) {
    const int64_t len = std::min(kBlock, n - s);
    T* __restrict pb = p + s;
    const T* __restrict gb = g + s;
    T* __restrict sb = sum + s;
    for (int64_t i = 0; i < len; ++i) {
      T gi = c.sign * gb[i];
      if constexpr (kWd) gi = gi + c.wd * pb[i];
      grad[i] = gi;
      const T si = sb[i] + gi * gi;
      sb[i] = si;
      root[i] = si;
    }
    sqrt_block(root, len);
    for (int64_t i = 0; i < len; ++i) {
      const T std_dev = root[i] + c.eps;
      pb[i] = pb[i] + (c.neg_clr * grad[i]) / std_dev;
    }
  }
}

template <class T>
void adagrad_step(const Tensor& param, const Tensor& grad, const Tensor& sum,
                  const AdagradStepParams& ap) {
  const double clr = ap.lr / (1.0 + (static_cast<double>(ap.step) - 1.0) * ap.lr_decay);
  const AdagradConsts<T> c{static_cast<T>(ap.maximize ? -1.0 : 1.0),
                           static_cast<T>(ap.weight_decay), static_cast<T>(ap.eps),
                           static_cast<T>(-clr)};
  T* p = param.data<T>();
  const T* g = grad.data<T>();
  T* s = sum.data<T>();
  with_flag(ap.weight_decay != 0.0, [&](auto wd) {
    parallel_range(param.numel(), [&](int64_t b, int64_t e) {
      adagrad_range<T, wd()>(p + b, g + b, s + b, e - b, c);
    });
  });
}

// ---- RMSprop --------------------------------------------------------------------------------

template <class T>
struct RmspropConsts {
  T sign, wd, alpha, one_minus_alpha, eps, momentum, neg_lr;
};

template <class T, bool kWd, bool kCentered, bool kMomentum>
void rmsprop_range(T* __restrict p, const T* __restrict g, T* __restrict sq, T* __restrict buf,
                   T* __restrict ga, int64_t n, const RmspropConsts<T>& c) {
  alignas(64) T root[kBlock];
  alignas(64) T grad[kBlock];
  for (int64_t s = 0; s < n; s += kBlock) {
    const int64_t len = std::min(kBlock, n - s);
    T* __restrict pb = p + s;
    const T* __restrict gb = g + s;
    T* __restrict sqb = sq + s;
    for (int64_t i = 0; i < len; ++i) {
      T gi = c.sign * gb[i];
      if constexpr (kWd) gi = gi + c.wd * pb[i];
      grad[i] = gi;
      const T si = sqb[i] * c.alpha + (c.one_minus_alpha * gi) * gi;
      sqb[i] = si;
      if constexpr (kCentered) {
        const T ai = ga[s + i] * c.alpha + c.one_minus_alpha * gi;
        ga[s + i] = ai;
        root[i] = si + (-ai) * ai;
      } else {
        root[i] = si;
      }
    }
    sqrt_block(root, len);
    for (int64_t i = 0; i < len; ++i) {
      const T avg = root[i] + c.eps;
      if constexpr (kMomentum) {
        const T bi = buf[s + i] * c.momentum + grad[i] / avg;
        buf[s + i] = bi;
        pb[i] = pb[i] + c.neg_lr * bi;
      } else {
        pb[i] = pb[i] + (c.neg_lr * grad[i]) / avg;
      }
    }
  }
}

template <class T>
void rmsprop_step(const Tensor& param, const Tensor& grad, const Tensor& square_avg,
                  const Tensor& momentum_buffer, const Tensor& grad_avg,
                  const RmspropStepParams& rp) {
  const RmspropConsts<T> c{static_cast<T>(rp.maximize ? -1.0 : 1.0),
                           static_cast<T>(rp.weight_decay),
                           static_cast<T>(rp.alpha),
                           static_cast<T>(1.0 - rp.alpha),
                           static_cast<T>(rp.eps),
                           static_cast<T>(rp.momentum),
                           static_cast<T>(-rp.lr)};
  T* p = param.data<T>();
  const T* g = grad.data<T>();
  T* sq = square_avg.data<T>();
  const bool has_momentum = rp.momentum > 0.0;
  T* buf = has_momentum ? momentum_buffer.data<T>() : nullptr;
  T* ga = rp.centered ? grad_avg.data<T>() : nullptr;
  with_flag(rp.weight_decay != 0.0, [&](auto wd) {
    with_flag(rp.centered, [&](auto centered) {
      with_flag(has_momentum, [&](auto mom) {
        parallel_range(param.numel(), [&](int64_t b, int64_t e) {
          rmsprop_range<T, wd(), centered(), mom()>(p + b, g + b, sq + b, buf ? buf + b : nullptr,
                                                    ga ? ga + b : nullptr, e - b, c);
        });
      });
    });
  });
}

// ---- sum of squares -------------------------------------------------------------------------

// Σ x[i]² in double with eight interleaved accumulators (a fixed order, so the result does not
// depend on the thread count).
template <class T>
double sum_squares_range(const T* __restrict x, int64_t n) {
  double acc[8] = {0, 0, 0, 0, 0, 0, 0, 0};
  int64_t i = 0;
  for (; i + 8 <= n; i += 8)
    for (int k = 0; k < 8; ++k) {
      const double v = static_cast<double>(x[i + k]);
      acc[k] += v * v;
    }
  for (; i < n; ++i) {
    const double v = static_cast<double>(x[i]);
    acc[0] += v * v;
  }
  return ((acc[0] + acc[1]) + (acc[2] + acc[3])) + ((acc[4] + acc[5]) + (acc[6] + acc[7]));
}

template <class T>
double sum_squares(const Tensor& x) {
  const T* data = x.data<T>();
  const int64_t n = x.numel();
  if (n < kParallelGrain) return sum_squares_range(data, n);
  // Fixed blocks summed in parallel, then their partial sums in order: deterministic.
  const int64_t blocks = (n + kParallelGrain - 1) / kParallelGrain;
  std::vector<double> partial(static_cast<size_t>(blocks));
#pragma omp parallel for schedule(static)
  for (int64_t b = 0; b < blocks; ++b) {
    const int64_t begin = b * kParallelGrain;
    partial[b] = sum_squares_range(data + begin, std::min(kParallelGrain, n - begin));
  }
  double total = 0.0;
  for (double v : partial) total += v;
  return total;
}

template <class T>
void register_for(KernelRegistry& r, DType dtype) {
  put<SgdStepKernel>(r, OpId::sgd_step, dtype, &sgd_step<T>);
  put<AdamStepKernel>(r, OpId::adam_step, dtype, &adam_step<T>);
  put<AdagradStepKernel>(r, OpId::adagrad_step, dtype, &adagrad_step<T>);
  put<RmspropStepKernel>(r, OpId::rmsprop_step, dtype, &rmsprop_step<T>);
  put<SumSquaresKernel>(r, OpId::sum_squares, dtype, &sum_squares<T>);
}

}  // namespace

void register_optim_kernels(KernelRegistry& r) {
  register_for<float>(r, DType::f32);
  register_for<double>(r, DType::f64);
}

}  // namespace exadnn::cpu
