// Elementwise CUDA kernels: copy, cast, fill, unary, binary, compare and where over strided
// operands (one thread per element, grid-stride loops). The per-element arithmetic is the CPU
// backend's: 16-bit floats compute in f32, NaN propagates through maximum/minimum, casts to
// integers map NaN to 0 and saturate.
#include <limits>

#include "../saturating_cast.h"
#include "device_types.cuh"

namespace exadnn::cuda {

namespace {

// ---- copy, cast, fill -----------------------------------------------------------------------

template <class Bits>
struct CopyFn {
  __device__ void operator()(const Operands<2>& o, const int64_t (&off)[2]) const {
    static_cast<Bits*>(o.op[0].data)[off[0]] = static_cast<const Bits*>(o.op[1].data)[off[1]];
  }
};

// Value conversion defined for every input (the CPU backend's `convert`).
template <class To, class From>
__host__ __device__ __forceinline__ To convert(From v) {
  using C = typename Elem<From>::C;
  const C x = Elem<From>::load(v);
  if constexpr (std::is_same_v<To, bool>) {
    return x != C(0);
  } else if constexpr (std::is_integral_v<To> && std::is_floating_point_v<C>) {
    if (x != x) return To(0);
    const double lo = static_cast<double>(std::numeric_limits<To>::lowest());
    const double hi = static_cast<double>(std::numeric_limits<To>::max());
    const double d = static_cast<double>(x);
    if (d <= lo) return std::numeric_limits<To>::lowest();
    if (d >= hi) return std::numeric_limits<To>::max();
    return static_cast<To>(d);
  } else if constexpr (std::is_same_v<To, __half> || std::is_same_v<To, __nv_bfloat16>) {
    return Elem<To>::store(static_cast<float>(x));
  } else {
    return static_cast<To>(x);
  }
}

template <class To, class From>
struct CastFn {
  __device__ void operator()(const Operands<2>& o, const int64_t (&off)[2]) const {
    static_cast<To*>(o.op[0].data)[off[0]] =
        convert<To>(static_cast<const From*>(o.op[1].data)[off[1]]);
  }
};

template <class T>
struct FillFn {
  T value;
  __device__ void operator()(const Operands<1>& o, const int64_t (&off)[1]) const {
    static_cast<T*>(o.op[0].data)[off[0]] = value;
  }
};

// ---- unary ----------------------------------------------------------------------------------

// Applies Op (a functor on the compute type) element by element.
template <class T, class Op>
struct UnaryFn {
  Op op;
  __device__ void operator()(const Operands<2>& o, const int64_t (&off)[2]) const {
    using E = Elem<T>;
    static_cast<T*>(o.op[0].data)[off[0]] =
        E::store(op(E::load(static_cast<const T*>(o.op[1].data)[off[1]])));
  }
};

template <class C>
struct Neg {
  __device__ C operator()(C x) const { return static_cast<C>(-x); }
};
template <class C>
struct Abs {
  __device__ C operator()(C x) const { return x < C(0) ? static_cast<C>(-x) : x; }
};
template <class C>
struct Sign {
  __device__ C operator()(C x) const { return static_cast<C>((C(0) < x) - (x < C(0))); }
};
template <class C>
struct Relu {
  __device__ C operator()(C x) const { return x > C(0) ? x : C(0); }
};
template <class C>
struct Clamp {
  C lo, hi;
  __device__ C operator()(C x) const { return x < lo ? lo : (x > hi ? hi : x); }
};
template <class C>
struct Exp {
  __device__ C operator()(C x) const { return d_exp(x); }
};
template <class C>
struct Log {
  __device__ C operator()(C x) const { return d_log(x); }
};
template <class C>
struct Sqrt {
  __device__ C operator()(C x) const { return d_sqrt(x); }
};
template <class C>
struct Tanh {
  __device__ C operator()(C x) const { return d_tanh(x); }
};
template <class C>
struct Sigmoid {  // split by sign so exp never overflows
  __device__ C operator()(C x) const {
    if (x >= C(0)) return C(1) / (C(1) + d_exp(-x));
    const C e = d_exp(x);
    return e / (C(1) + e);
  }
};
template <class C>
struct Square {
  __device__ C operator()(C x) const { return x * x; }
};
template <class C>
struct PowScalar {
  C e;
  __device__ C operator()(C x) const { return d_pow(x, e); }
};

template <class T, class Op>
void run_unary(const IterShape& s, Operand out, Operand in, Op op) {
  launch_elementwise(s, Operands<2>{{out, in}}, UnaryFn<T, Op>{op}, "unary");
}

template <class T>
void unary_for(UnaryOp op, ElemType type, const IterShape& s, Operand out, Operand in, double a,
               double b) {
  using C = typename Elem<T>::C;
  if constexpr (std::is_same_v<T, bool>) {
    unsupported_type("unary", type);
  } else {
    switch (op) {
      case UnaryOp::neg:
        return run_unary<T>(s, out, in, Neg<C>{});
      case UnaryOp::abs:
        return run_unary<T>(s, out, in, Abs<C>{});
      case UnaryOp::sign:
        return run_unary<T>(s, out, in, Sign<C>{});
      case UnaryOp::relu:
        return run_unary<T>(s, out, in, Relu<C>{});
      case UnaryOp::clamp:
        return run_unary<T>(
            s, out, in, Clamp<C>{backend::saturating_cast<C>(a), backend::saturating_cast<C>(b)});
      default:
        break;
    }
    if constexpr (std::is_floating_point_v<C>) {
      switch (op) {
        case UnaryOp::exp:
          return run_unary<T>(s, out, in, Exp<C>{});
        case UnaryOp::log:
          return run_unary<T>(s, out, in, Log<C>{});
        case UnaryOp::sqrt:
          return run_unary<T>(s, out, in, Sqrt<C>{});
        case UnaryOp::tanh:
          return run_unary<T>(s, out, in, Tanh<C>{});
        case UnaryOp::sigmoid:
          return run_unary<T>(s, out, in, Sigmoid<C>{});
        case UnaryOp::pow_scalar:
          if (a == 2.0) return run_unary<T>(s, out, in, Square<C>{});
          return run_unary<T>(s, out, in, PowScalar<C>{static_cast<C>(a)});
        default:
          break;
      }
    }
    unsupported_type("unary (this op)", type);
  }
}

// ---- binary, compare, where -----------------------------------------------------------------

template <class T, class Op>
struct BinaryFn {
  Op op;
  __device__ void operator()(const Operands<3>& o, const int64_t (&off)[3]) const {
    using E = Elem<T>;
    static_cast<T*>(o.op[0].data)[off[0]] =
        E::store(op(E::load(static_cast<const T*>(o.op[1].data)[off[1]]),
                    E::load(static_cast<const T*>(o.op[2].data)[off[2]])));
  }
};
template <class T, class Op>
struct CompareFn {
  Op op;
  __device__ void operator()(const Operands<3>& o, const int64_t (&off)[3]) const {
    using E = Elem<T>;
    static_cast<bool*>(o.op[0].data)[off[0]] =
        op(E::load(static_cast<const T*>(o.op[1].data)[off[1]]),
           E::load(static_cast<const T*>(o.op[2].data)[off[2]]));
  }
};

template <class C>
struct Add {
  __device__ C operator()(C x, C y) const { return static_cast<C>(x + y); }
};
template <class C>
struct Sub {
  __device__ C operator()(C x, C y) const { return static_cast<C>(x - y); }
};
template <class C>
struct Mul {
  __device__ C operator()(C x, C y) const { return static_cast<C>(x * y); }
};
template <class C>
struct Div {
  __device__ C operator()(C x, C y) const { return static_cast<C>(x / y); }
};
template <class C>
struct Pow {
  __device__ C operator()(C x, C y) const { return d_pow(x, y); }
};
template <class C>
struct Maximum {  // NaN propagates
  __device__ C operator()(C x, C y) const { return (x >= y || x != x) ? x : y; }
};
template <class C>
struct Minimum {
  __device__ C operator()(C x, C y) const { return (x <= y || x != x) ? x : y; }
};
template <class C>
struct ReluBackward {  // x: relu's gradient, y: relu's input
  __device__ C operator()(C g, C x) const { return x > C(0) ? g : C(0); }
};
template <class C>
struct Eq {
  __device__ bool operator()(C x, C y) const { return x == y; }
};
template <class C>
struct Ne {
  __device__ bool operator()(C x, C y) const { return x != y; }
};
template <class C>
struct Lt {
  __device__ bool operator()(C x, C y) const { return x < y; }
};
template <class C>
struct Le {
  __device__ bool operator()(C x, C y) const { return x <= y; }
};
template <class C>
struct Gt {
  __device__ bool operator()(C x, C y) const { return x > y; }
};
template <class C>
struct Ge {
  __device__ bool operator()(C x, C y) const { return x >= y; }
};

template <class T, class Op>
void run_binary(const IterShape& s, Operand out, Operand x, Operand y, Op op) {
  launch_elementwise(s, Operands<3>{{out, x, y}}, BinaryFn<T, Op>{op}, "binary");
}

template <class T>
void binary_for(BinaryOp op, ElemType type, const IterShape& s, Operand out, Operand x, Operand y) {
  using C = typename Elem<T>::C;
  if constexpr (std::is_same_v<T, bool>) {
    unsupported_type("binary", type);
  } else {
    switch (op) {
      case BinaryOp::add:
        return run_binary<T>(s, out, x, y, Add<C>{});
      case BinaryOp::sub:
        return run_binary<T>(s, out, x, y, Sub<C>{});
      case BinaryOp::mul:
        return run_binary<T>(s, out, x, y, Mul<C>{});
      case BinaryOp::maximum:
        return run_binary<T>(s, out, x, y, Maximum<C>{});
      case BinaryOp::minimum:
        return run_binary<T>(s, out, x, y, Minimum<C>{});
      default:
        break;
    }
    if constexpr (std::is_floating_point_v<C>) {
      switch (op) {
        case BinaryOp::div:
          return run_binary<T>(s, out, x, y, Div<C>{});
        case BinaryOp::pow:
          return run_binary<T>(s, out, x, y, Pow<C>{});
        case BinaryOp::relu_backward:
          return run_binary<T>(s, out, x, y, ReluBackward<C>{});
        default:
          break;
      }
    }
    unsupported_type("binary (this op)", type);
  }
}

template <class T, class Op>
void run_compare(const IterShape& s, Operand out, Operand x, Operand y, Op op) {
  launch_elementwise(s, Operands<3>{{out, x, y}}, CompareFn<T, Op>{op}, "compare");
}

template <class T>
void compare_for(CompareOp op, const IterShape& s, Operand out, Operand x, Operand y) {
  using C = typename Elem<T>::C;
  switch (op) {
    case CompareOp::eq:
      return run_compare<T>(s, out, x, y, Eq<C>{});
    case CompareOp::ne:
      return run_compare<T>(s, out, x, y, Ne<C>{});
    case CompareOp::lt:
      return run_compare<T>(s, out, x, y, Lt<C>{});
    case CompareOp::le:
      return run_compare<T>(s, out, x, y, Le<C>{});
    case CompareOp::gt:
      return run_compare<T>(s, out, x, y, Gt<C>{});
    case CompareOp::ge:
      return run_compare<T>(s, out, x, y, Ge<C>{});
  }
}

template <class Bits>
struct WhereFn {
  __device__ void operator()(const Operands<4>& o, const int64_t (&off)[4]) const {
    const bool c = static_cast<const bool*>(o.op[1].data)[off[1]];
    static_cast<Bits*>(o.op[0].data)[off[0]] =
        static_cast<const Bits*>(o.op[c ? 2 : 3].data)[off[c ? 2 : 3]];
  }
};

// Calls f(Bits{}) with the unsigned type of `bytes` bytes.
template <class F>
void visit_bits(int bytes, F&& f) {
  switch (bytes) {
    case 1:
      return f(uint8_t{});
    case 2:
      return f(uint16_t{});
    case 4:
      return f(uint32_t{});
    default:
      return f(uint64_t{});
  }
}

}  // namespace

void launch_copy(const IterShape& s, Operand out, Operand in, int elem_bytes) {
  visit_bits(elem_bytes, [&](auto bits) {
    launch_elementwise(s, Operands<2>{{out, in}}, CopyFn<decltype(bits)>{}, "copy");
  });
}

void launch_cast(const IterShape& s, Operand out, ElemType to, Operand in, ElemType from) {
  visit_elem(from, [&](auto from_tag) {
    visit_elem(to, [&](auto to_tag) {
      using To = decltype(to_tag);
      using From = decltype(from_tag);
      launch_elementwise(s, Operands<2>{{out, in}}, CastFn<To, From>{}, "cast");
    });
  });
}

void launch_fill(const IterShape& s, Operand out, ElemType type, double value) {
  visit_elem(type, [&](auto tag) {
    using T = decltype(tag);
    // Converted once on the host, as the CPU's fill does.
    launch_elementwise(s, Operands<1>{{out}}, FillFn<T>{convert<T>(value)}, "fill");
  });
}

void launch_unary(UnaryOp op, ElemType type, const IterShape& s, Operand out, Operand in, double a,
                  double b) {
  visit_elem(type, [&](auto tag) { unary_for<decltype(tag)>(op, type, s, out, in, a, b); });
}

void launch_binary(BinaryOp op, ElemType type, const IterShape& s, Operand out, Operand x,
                   Operand y) {
  visit_elem(type, [&](auto tag) { binary_for<decltype(tag)>(op, type, s, out, x, y); });
}

void launch_compare(CompareOp op, ElemType type, const IterShape& s, Operand out, Operand x,
                    Operand y) {
  visit_elem(type, [&](auto tag) { compare_for<decltype(tag)>(op, s, out, x, y); });
}

void launch_where(const IterShape& s, Operand out, Operand cond, Operand x, Operand y,
                  int elem_bytes) {
  visit_bits(elem_bytes, [&](auto bits) {
    launch_elementwise(s, Operands<4>{{out, cond, x, y}}, WhereFn<decltype(bits)>{}, "where");
  });
}

}  // namespace exadnn::cuda
