// CPU binary elementwise kernels: arithmetic, comparisons and where.
#include <cmath>
#include <type_traits>

#include "exadnn/backend/kernels.h"
#include "loops.h"

namespace exadnn::cpu {

namespace {

template <class T>
struct Arith {
  using C = compute_t<T>;
  template <class F>
  static void run(const Tensor& o, const Tensor& a, const Tensor& b, F f) {
    map_elements<T, T, 2>(o, {&a, &b}, f);
  }
  static void add(const Tensor& o, const Tensor& a, const Tensor& b) {
    run(o, a, b, [](C x, C y) { return static_cast<C>(x + y); });
  }
  static void sub(const Tensor& o, const Tensor& a, const Tensor& b) {
    run(o, a, b, [](C x, C y) { return static_cast<C>(x - y); });
  }
  static void mul(const Tensor& o, const Tensor& a, const Tensor& b) {
    run(o, a, b, [](C x, C y) { return static_cast<C>(x * y); });
  }
  static void div(const Tensor& o, const Tensor& a, const Tensor& b) {
    run(o, a, b, [](C x, C y) { return static_cast<C>(x / y); });
  }
  static void pow(const Tensor& o, const Tensor& a, const Tensor& b) {
    run(o, a, b, [](C x, C y) { return static_cast<C>(std::pow(x, y)); });
  }
  // NaN propagates through maximum/minimum, as in NumPy.
  static void maximum(const Tensor& o, const Tensor& a, const Tensor& b) {
    run(o, a, b, [](C x, C y) { return (x >= y || x != x) ? x : y; });
  }
  static void minimum(const Tensor& o, const Tensor& a, const Tensor& b) {
    run(o, a, b, [](C x, C y) { return (x <= y || x != x) ? x : y; });
  }
  // relu(a + b) (f32, f64: computed in T, so rounded as add then relu round it).
  static void add_relu(const Tensor& o, const Tensor& a, const Tensor& b) {
    static_assert(std::is_same_v<C, T>);
    run(o, a, b, [](T x, T y) {
      const T sum = x + y;
      return sum > T(0) ? sum : T(0);
    });
  }
  // a: the gradient of relu's output, b: relu's input.
  static void relu_backward(const Tensor& o, const Tensor& a, const Tensor& b) {
    if constexpr (is_half_storage<T>)  // g or +0: selected on the bits
      map_elements<uint16_t, uint16_t, 2>(o, {&a, &b}, [](uint16_t g, uint16_t x) {
        return positive_bits<T>(x) ? g : uint16_t(0);
      });
    else
      run(o, a, b, [](C g, C x) { return x > C(0) ? g : C(0); });
  }
};

template <class T>
struct Compare {
  using C = compute_t<T>;
  template <class F>
  static void run(const Tensor& o, const Tensor& a, const Tensor& b, F f) {
    map_elements<bool, T, 2>(o, {&a, &b}, f);
  }
  static void eq(const Tensor& o, const Tensor& a, const Tensor& b) {
    run(o, a, b, [](C x, C y) { return x == y; });
  }
  static void ne(const Tensor& o, const Tensor& a, const Tensor& b) {
    run(o, a, b, [](C x, C y) { return x != y; });
  }
  static void lt(const Tensor& o, const Tensor& a, const Tensor& b) {
    run(o, a, b, [](C x, C y) { return x < y; });
  }
  static void le(const Tensor& o, const Tensor& a, const Tensor& b) {
    run(o, a, b, [](C x, C y) { return x <= y; });
  }
  static void gt(const Tensor& o, const Tensor& a, const Tensor& b) {
    run(o, a, b, [](C x, C y) { return x > y; });
  }
  static void ge(const Tensor& o, const Tensor& a, const Tensor& b) {
    run(o, a, b, [](C x, C y) { return x >= y; });
  }
};

template <class T>
void where_kernel(const Tensor& out, const Tensor& cond, const Tensor& a, const Tensor& b) {
  std::array<const Tensor*, 4> ops{&out, &cond, &a, &b};
  StridedLoop<4> loop(out.shape(), ops);
  loop.run([](char** p, const int64_t* s, int64_t n) {
    for (int64_t i = 0; i < n; ++i) {
      const bool c = *reinterpret_cast<const bool*>(p[1] + i * s[1]);
      *reinterpret_cast<T*>(p[0] + i * s[0]) =
          *reinterpret_cast<const T*>(p[c ? 2 : 3] + i * s[c ? 2 : 3]);
    }
  });
}

template <class T>
void register_for(KernelRegistry& r, DType dtype) {
  using A = Arith<T>;
  using K = Compare<T>;
  if constexpr (!std::is_same_v<T, bool>) {
    put<BinaryKernel>(r, OpId::add, dtype, &A::add);
    put<BinaryKernel>(r, OpId::sub, dtype, &A::sub);
    put<BinaryKernel>(r, OpId::mul, dtype, &A::mul);
    put<BinaryKernel>(r, OpId::maximum, dtype, &A::maximum);
    put<BinaryKernel>(r, OpId::minimum, dtype, &A::minimum);
  }
  if constexpr (std::is_floating_point_v<compute_t<T>>) {  // integers divide as floats
    put<BinaryKernel>(r, OpId::div, dtype, &A::div);
    put<BinaryKernel>(r, OpId::relu_backward, dtype, &A::relu_backward);
    if constexpr (std::is_same_v<T, float> || std::is_same_v<T, double>)
      put<BinaryKernel>(r, OpId::add_relu, dtype, &A::add_relu);
    put<BinaryKernel>(r, OpId::pow, dtype, &A::pow);
  }
  put<CompareKernel>(r, OpId::eq, dtype, &K::eq);
  put<CompareKernel>(r, OpId::ne, dtype, &K::ne);
  put<CompareKernel>(r, OpId::lt, dtype, &K::lt);
  put<CompareKernel>(r, OpId::le, dtype, &K::le);
  put<CompareKernel>(r, OpId::gt, dtype, &K::gt);
  put<CompareKernel>(r, OpId::ge, dtype, &K::ge);
  put<WhereKernel>(r, OpId::where, dtype, &where_kernel<T>);
}

}  // namespace

void register_binary_kernels(KernelRegistry& r) {
  for (int t = 0; t < kDTypeCount; ++t) {
    const DType dtype = static_cast<DType>(t);
    visit_dtype(dtype, [&](auto tag) { register_for<decltype(tag)>(r, dtype); });
  }
}

}  // namespace exadnn::cpu
