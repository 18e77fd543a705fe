// CPU unary elementwise kernels: out = f(in) for one dtype.
#include <cmath>
#include <limits>
#include <type_traits>

#include "../saturating_cast.h"
#include "exadnn/backend/kernels.h"
#include "loops.h"

namespace exadnn::cpu {

namespace {

template <class T, class F>
void unary(const Tensor& out, const Tensor& in, F f) {
  map_elements<T, T, 1>(out, {&in}, f);
}

// Each functor maps a compute-type value (float for 16-bit types) to the result.
template <class T>
struct Kernels {
  using C = compute_t<T>;
  static void neg(const Tensor& o, const Tensor& i, const UnaryParams&) {
    unary<T>(o, i, [](C x) { return static_cast<C>(-x); });
  }
  static void abs(const Tensor& o, const Tensor& i, const UnaryParams&) {
    unary<T>(o, i, [](C x) { return x < C(0) ? static_cast<C>(-x) : x; });
  }
  static void sign(const Tensor& o, const Tensor& i, const UnaryParams&) {
    unary<T>(o, i, [](C x) { return static_cast<C>((C(0) < x) - (x < C(0))); });
  }
  static void relu(const Tensor& o, const Tensor& i, const UnaryParams&) {
    if constexpr (is_half_storage<T>)  // x or +0: selected on the bits
      map_elements<uint16_t, uint16_t, 1>(
          o, {&i}, [](uint16_t x) { return positive_bits<T>(x) ? x : uint16_t(0); });
    else
      unary<T>(o, i, [](C x) { return x > C(0) ? x : C(0); });
  }
  static void clamp(const Tensor& o, const Tensor& i, const UnaryParams& p) {
    const C lo = backend::saturating_cast<C>(p.a), hi = backend::saturating_cast<C>(p.b);
    unary<T>(o, i, [lo, hi](C x) { return x < lo ? lo : (x > hi ? hi : x); });
  }
  // Transcendental functions: floating types only.
  static void exp(const Tensor& o, const Tensor& i, const UnaryParams&) {
    unary<T>(o, i, [](C x) { return std::exp(x); });
  }
  static void log(const Tensor& o, const Tensor& i, const UnaryParams&) {
    unary<T>(o, i, [](C x) { return std::log(x); });
  }
  static void sqrt(const Tensor& o, const Tensor& i, const UnaryParams&) {
    unary<T>(o, i, [](C x) { return std::sqrt(x); });
  }
  static void tanh(const Tensor& o, const Tensor& i, const UnaryParams&) {
    unary<T>(o, i, [](C x) { return std::tanh(x); });
  }
  static void sigmoid(const Tensor& o, const Tensor& i, const UnaryParams&) {
    // Split by sign so exp never overflows.
    unary<T>(o, i, [](C x) {
      if (x >= C(0)) return C(1) / (C(1) + std::exp(-x));
      const C e = std::exp(x);
      return e / (C(1) + e);
    });
  }
  static void pow_scalar(const Tensor& o, const Tensor& i, const UnaryParams& p) {
    const C e = static_cast<C>(p.a);
    if (p.a == 2.0) return unary<T>(o, i, [](C x) { return x * x; });
    unary<T>(o, i, [e](C x) { return std::pow(x, e); });
  }
};

template <class T>
void register_for(KernelRegistry& r, DType dtype) {
  using K = Kernels<T>;
  if constexpr (!std::is_same_v<T, bool>) {
    put<UnaryKernel>(r, OpId::abs, dtype, &K::abs);
    put<UnaryKernel>(r, OpId::relu, dtype, &K::relu);
    put<UnaryKernel>(r, OpId::clamp, dtype, &K::clamp);
    if constexpr (!std::is_same_v<T, uint8_t>) {
      put<UnaryKernel>(r, OpId::neg, dtype, &K::neg);
      put<UnaryKernel>(r, OpId::sign, dtype, &K::sign);
    }
  }
  if constexpr (std::is_floating_point_v<compute_t<T>>) {
    put<UnaryKernel>(r, OpId::exp, dtype, &K::exp);
    put<UnaryKernel>(r, OpId::log, dtype, &K::log);
    put<UnaryKernel>(r, OpId::sqrt, dtype, &K::sqrt);
    put<UnaryKernel>(r, OpId::tanh, dtype, &K::tanh);
    put<UnaryKernel>(r, OpId::sigmoid, dtype, &K::sigmoid);
    put<UnaryKernel>(r, OpId::pow_scalar, dtype, &K::pow_scalar);
  }
}

}  // namespace

void register_unary_kernels(KernelRegistry& r) {
  for (int t = 0; t < kDTypeCount; ++t) {
    const DType dtype = static_cast<DType>(t);
    visit_dtype(dtype, [&](auto tag) { register_for<decltype(tag)>(r, dtype); });
  }
}

}  // namespace exadnn::cpu
