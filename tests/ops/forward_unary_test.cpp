// Forward checks of the unary elementwise ops against naive loops, for every CPU dtype.
#include <gtest/gtest.h>

#include "op_test_util.h"

using namespace exadnn;
using exadnn::optest::integers;
using exadnn::optest::make;
using exadnn::optest::matches;
using exadnn::optest::Ref;
using exadnn::optest::ref_unary;
using exadnn::optest::uniform;
using exadnn::optest::Values;

namespace {

class ForwardUnary : public ::testing::TestWithParam<DType> {};

bool is_bool(DType t) {
  return t == DType::boolean;
}
bool is_u8(DType t) {
  return t == DType::u8;
}
// Floating-only ops compute integer and bool inputs in f32.
DType float_result(DType t) {
  return is_floating(t) ? t : DType::f32;
}

// Inputs of `dtype`: a contiguous [4,6], its transpose (strided), and a stepped slice.
struct Inputs {
  std::vector<Tensor> tensors;
  std::vector<std::string> names;
};

Inputs inputs_for(DType dtype, const Values& v) {
  const Tensor x = make(v, {4, 6}, dtype);
  return {{x, x.t(), x.slice(1, 1, 6, 2), x.select(0, 2)},
          {"contiguous", "transposed", "slice", "select"}};
}

// Runs op on every input layout and compares with f applied to the stored (rounded) values.
void check(const std::function<Tensor(const Tensor&)>& op, const std::function<double(double)>& f,
           DType in_dtype, DType out_dtype, const Values& v) {
  const Inputs in = inputs_for(in_dtype, v);
  for (size_t i = 0; i < in.tensors.size(); ++i) {
    const Tensor& x = in.tensors[i];
    const Ref ref = ref_unary(exadnn::testing::values(x), x.shape(), f);
    EXPECT_TRUE(matches(op(x), out_dtype, ref))
        << in.names[i] << " input of " << dtype_name(in_dtype);
  }
}

Values sample(DType t, uint64_t seed) {
  return optest::sample_for(t, 24, seed);
}
// Strictly positive samples for log, sqrt and fractional powers.
Values positive(DType t, uint64_t seed) {
  if (is_bool(t)) return Values(24, 1.0);
  if (!is_floating(t)) return integers(24, seed, 1, 9);
  return uniform(24, seed, 0.25, 4.0);
}

TEST_P(ForwardUnary, Neg) {
  const DType t = GetParam();
  if (is_bool(t) || is_u8(t)) {  // the CPU backend lists no neg kernel for these
    EXPECT_EXADNN_ERROR(neg(make(sample(t, 1), {4, 6}, t)), optest::no_kernel("neg"),
                        optest::with_dtype(t));
    return;
  }
  check([](const Tensor& x) { return neg(x); }, [](double a) { return -a; }, t, t, sample(t, 1));
  check([](const Tensor& x) { return -x; }, [](double a) { return -a; }, t, t, sample(t, 2));
}

TEST_P(ForwardUnary, Abs) {
  const DType t = GetParam();
  if (is_bool(t)) {  // no abs kernel for bool
    EXPECT_EXADNN_ERROR(abs(make(sample(t, 3), {4, 6}, t)), optest::no_kernel("abs"),
                        optest::with_dtype(t));
    return;
  }
  check([](const Tensor& x) { return abs(x); }, [](double a) { return std::fabs(a); }, t, t,
        sample(t, 3));
}

TEST_P(ForwardUnary, Relu) {
  const DType t = GetParam();
  if (is_bool(t)) {  // no relu kernel for bool
    EXPECT_EXADNN_ERROR(relu(make(sample(t, 4), {4, 6}, t)), optest::no_kernel("relu"),
                        optest::with_dtype(t));
    return;
  }
  check([](const Tensor& x) { return relu(x); }, [](double a) { return a > 0 ? a : 0.0; }, t, t,
        sample(t, 4));
}

TEST_P(ForwardUnary, Sign) {
  const DType t = GetParam();
  if (is_bool(t) || is_u8(t)) {  // no sign kernel for these
    EXPECT_EXADNN_ERROR(sign(make(sample(t, 5), {4, 6}, t)), optest::no_kernel("sign"),
                        optest::with_dtype(t));
    return;
  }
  Values v = sample(t, 5);
  v[0] = 0.0;  // sign(0) = 0
  check([](const Tensor& x) { return sign(x); }, [](double a) { return double((a > 0) - (a < 0)); },
        t, t, v);
}

TEST_P(ForwardUnary, Clamp) {
  const DType t = GetParam();
  if (is_bool(t)) {  // no clamp kernel for bool
    EXPECT_EXADNN_ERROR(clamp(make(sample(t, 6), {4, 6}, t), 0.0, 1.0), optest::no_kernel("clamp"),
                        optest::with_dtype(t));
    return;
  }
  const double lo = is_u8(t) ? 2.0 : (is_floating(t) ? -0.75 : -3.0);
  const double hi = is_u8(t) ? 6.0 : (is_floating(t) ? 1.25 : 5.0);
  check([=](const Tensor& x) { return clamp(x, lo, hi); },
        [=](double a) { return std::min(std::max(a, lo), hi); }, t, t, sample(t, 6));
}

TEST_P(ForwardUnary, Exp) {
  const DType t = GetParam();
  check([](const Tensor& x) { return exp(x); }, [](double a) { return std::exp(a); }, t,
        float_result(t), sample(t, 7));
}

TEST_P(ForwardUnary, Log) {
  const DType t = GetParam();
  check([](const Tensor& x) { return log(x); }, [](double a) { return std::log(a); }, t,
        float_result(t), positive(t, 8));
}

TEST_P(ForwardUnary, Sqrt) {
  const DType t = GetParam();
  check([](const Tensor& x) { return sqrt(x); }, [](double a) { return std::sqrt(a); }, t,
        float_result(t), positive(t, 9));
}

TEST_P(ForwardUnary, Tanh) {
  const DType t = GetParam();
  check([](const Tensor& x) { return tanh(x); }, [](double a) { return std::tanh(a); }, t,
        float_result(t), sample(t, 10));
}

TEST_P(ForwardUnary, Sigmoid) {
  const DType t = GetParam();
  check([](const Tensor& x) { return sigmoid(x); },
        [](double a) { return 1.0 / (1.0 + std::exp(-a)); }, t, float_result(t), sample(t, 11));
}

TEST_P(ForwardUnary, PowScalar) {
  const DType t = GetParam();
  for (double e : {2.0, 3.0, 0.0, -1.0}) {
    check([=](const Tensor& x) { return pow(x, e); }, [=](double a) { return std::pow(a, e); }, t,
          float_result(t), positive(t, 12));
  }
  check([](const Tensor& x) { return pow(x, 0.5); }, [](double a) { return std::sqrt(a); }, t,
        float_result(t), positive(t, 13));
  if (!is_bool(t) && !is_u8(t))  // negative bases with an integral exponent
    check([](const Tensor& x) { return pow(x, 2.0); }, [](double a) { return a * a; }, t,
          float_result(t), sample(t, 14));
}

INSTANTIATE_TEST_SUITE_P(AllDTypes, ForwardUnary, ::testing::ValuesIn(optest::all_dtypes()),
                         optest::DTypeName());

TEST(ForwardUnaryExtra, SigmoidAndExpExtremes) {
  // Large |x|: sigmoid must not overflow to NaN; exp overflows to inf like the reference.
  const Values v{-800.0, -30.0, 0.0, 30.0, 800.0};
  const Tensor x = make(v, {5}, DType::f64);
  EXPECT_TRUE(matches(sigmoid(x), DType::f64, ref_unary(v, {5}, [](double a) {
                        return a >= 0 ? 1.0 / (1.0 + std::exp(-a))
                                      : std::exp(a) / (1.0 + std::exp(a));
                      })));
  EXPECT_TRUE(matches(exp(x), DType::f64, ref_unary(v, {5}, [](double a) { return std::exp(a); })));
  const Tensor y = make(v, {5}, DType::f32);
  EXPECT_TRUE(matches(sigmoid(y), DType::f32, ref_unary(v, {5}, [](double a) {
                        return a >= 0 ? 1.0 / (1.0 + std::exp(-a))
                                      : std::exp(a) / (1.0 + std::exp(a));
                      })));
}

TEST(ForwardUnaryExtra, LargeInputsUseThreads) {
  // 200*200 = 40000 elements is past the parallel grain: contiguous and transposed inputs.
  const Values v = uniform(200 * 200, 21, -3.0, 3.0);
  const Tensor x = make(v, {200, 200}, DType::f32);
  const Values xv = exadnn::testing::values(x);
  EXPECT_TRUE(matches(tanh(x), DType::f32,
                      ref_unary(xv, {200, 200}, [](double a) { return std::tanh(a); })));
  const Tensor xt = x.t();
  EXPECT_TRUE(matches(relu(xt), DType::f32,
                      ref_unary(exadnn::testing::values(xt), {200, 200},
                                [](double a) { return a > 0 ? a : 0.0; })));
  const Tensor xs = x.slice(1, 0, 200, 3);  // [200, 67], stride 3
  EXPECT_TRUE(matches(
      exp(xs), DType::f32,
      ref_unary(exadnn::testing::values(xs), xs.shape(), [](double a) { return std::exp(a); })));
}

TEST(ForwardUnaryExtra, ExpOfI32IsF32) {
  const Tensor x = from_vector<int32_t>({0, 1, 2, -1});
  const Tensor y = exp(x);
  EXPECT_EQ(y.dtype(), DType::f32);
  EXPECT_TRUE(
      matches(y, DType::f32, ref_unary({0, 1, 2, -1}, {4}, [](double a) { return std::exp(a); })));
}

TEST(ForwardUnaryExtra, ClampU8WithBoundsOutsideItsRange) {
  // Bounds outside u8's range clamp as the real numbers would: min(max(x, -3), 300) = x.
  // Regression: the CPU clamp kernel converts the bounds to the element type first
  // (src/backend/cpu/unary_kernels.cpp, Kernels::clamp: static_cast<C>(p.a)), so -3 becomes 253
  // for u8 and every element is clamped to 253 (or to 44 for hi = 300).
  const Values v{0, 1, 7, 200, 255};
  const Tensor x = make(v, {5}, DType::u8);
  EXPECT_TRUE(matches(clamp(x, -3.0, 300.0), DType::u8, Ref{{5}, v}));
}

}  // namespace
