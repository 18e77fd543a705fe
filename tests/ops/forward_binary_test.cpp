// Forward checks of binary arithmetic with broadcasting, per dtype, and of dtype promotion.
#include <gtest/gtest.h>

#include <cstring>
#include <limits>

#include "op_test_util.h"

using namespace exadnn;
using exadnn::optest::integers;
using exadnn::optest::make;
using exadnn::optest::matches;
using exadnn::optest::ref_binary;
using exadnn::optest::uniform;
using exadnn::optest::Values;

namespace {

using BinaryOp = std::function<Tensor(const Tensor&, const Tensor&)>;
using BinaryRef = std::function<double(double, double)>;

struct ShapePair {
  Shape a, b;
};

// Same shape, the broadcasting pairs, and a 0-d operand.
const std::vector<ShapePair>& shape_pairs() {
  static const std::vector<ShapePair> pairs{{{3, 4}, {3, 4}},    {{3, 1}, {4}}, {{2, 3, 4}, {4}},
                                            {{4}, {2, 3, 4}},    {{}, {3, 2}},  {{3, 2}, {}},
                                            {{2, 1, 4}, {3, 1}}, {{5}, {1}}};
  return pairs;
}

// Checks op against f for every shape pair and for strided operands (a transposed, b a stepped
// slice). `sample_a/b(n, seed)` give operand values; the reference uses the stored values.
void check(const BinaryOp& op, const BinaryRef& f, DType in, DType out,
           const std::function<Values(int64_t, uint64_t)>& sample_a,
           const std::function<Values(int64_t, uint64_t)>& sample_b) {
  uint64_t seed = 1;
  auto one = [&](const Tensor& a, const Tensor& b, const std::string& what) {
    const auto ref =
        ref_binary(exadnn::testing::values(a), a.shape(), exadnn::testing::values(b), b.shape(), f);
    EXPECT_TRUE(matches(op(a, b), out, ref))
        << what << " " << a.shape() << " with " << b.shape() << ", " << dtype_name(in);
  };
  for (const ShapePair& p : shape_pairs())
    one(make(sample_a(p.a.numel(), seed++), p.a, in), make(sample_b(p.b.numel(), seed++), p.b, in),
        "contiguous");
  const Tensor a = make(sample_a(12, seed++), {4, 3}, in),
               b = make(sample_b(24, seed++), {3, 8}, in);
  one(a.t(), b.slice(1, 0, 8, 2), "strided");
  one(a.t(), b.select(0, 2).slice(0, 1, 8, 2), "strided + broadcast");
  one(a.t().slice(1, 1, 4, 2), b.narrow(0, 1, 1).slice(1, 0, 4, 2), "slices");
}

class ForwardBinary : public ::testing::TestWithParam<DType> {};

Values sample(DType t, int64_t n, uint64_t seed) {
  return optest::sample_for(t, n, seed);
}
// Non-zero values for divisors; for u8 (no negatives) 1..9.
Values nonzero(DType t, int64_t n, uint64_t seed) {
  Values v = t == DType::u8 || t == DType::boolean ? integers(n, seed, 1, 9)
             : is_floating(t)                      ? uniform(n, seed, 0.25, 2.0)
                                                   : integers(n, seed, 1, 9);
  if (t != DType::u8 && t != DType::boolean)
    for (size_t i = 0; i < v.size(); i += 2) v[i] = -v[i];
  if (t == DType::boolean) std::fill(v.begin(), v.end(), 1.0);
  return v;
}

bool arithmetic_registered(DType t) {
  return t != DType::boolean;
}

#define ARITH_TEST(Name, expr, ref_expr, sample_b)                                     \
  TEST_P(ForwardBinary, Name) {                                                        \
    const DType t = GetParam();                                                        \
    if (!arithmetic_registered(t)) {                                                   \
      const Tensor x = make({1, 0, 1}, {3}, t);                                        \
      EXPECT_EXADNN_ERROR([](const Tensor& a, const Tensor& b) { return expr; }(x, x), \
                          optest::with_dtype(t), "no kernel");                         \
      return;                                                                          \
    }                                                                                  \
    check([](const Tensor& a, const Tensor& b) { return expr; },                       \
          [](double a, double b) { return ref_expr; }, t, t,                           \
          [t](int64_t n, uint64_t s) { return sample(t, n, s); }, sample_b);           \
  }

ARITH_TEST(Add, add(a, b), a + b, [t](int64_t n, uint64_t s) { return sample(t, n, s + 100); })
ARITH_TEST(AddOperator, a + b, a + b, [t](int64_t n, uint64_t s) { return sample(t, n, s + 100); })
ARITH_TEST(Mul, mul(a, b), a* b, [t](int64_t n, uint64_t s) { return sample(t, n, s + 100); })
ARITH_TEST(Maximum, maximum(a, b), std::max(a, b),
           [t](int64_t n, uint64_t s) { return sample(t, n, s + 100); })
ARITH_TEST(Minimum, minimum(a, b), std::min(a, b),
           [t](int64_t n, uint64_t s) { return sample(t, n, s + 100); })

TEST_P(ForwardBinary, Sub) {
  const DType t = GetParam();
  if (!arithmetic_registered(t)) {
    const Tensor x = make({1, 0, 1}, {3}, t);
    EXPECT_EXADNN_ERROR(sub(x, x), optest::no_kernel("sub"), optest::with_dtype(t));
    return;
  }
  // u8 has no negative results: a in [10, 19], b in [0, 9].
  auto sa = [t](int64_t n, uint64_t s) {
    return t == DType::u8 ? integers(n, s, 10, 19) : sample(t, n, s);
  };
  check([](const Tensor& a, const Tensor& b) { return sub(a, b); },
        [](double a, double b) { return a - b; }, t, t, sa,
        [t](int64_t n, uint64_t s) { return sample(t, n, s + 100); });
  check([](const Tensor& a, const Tensor& b) { return a - b; },
        [](double a, double b) { return a - b; }, t, t, sa,
        [t](int64_t n, uint64_t s) { return sample(t, n, s + 200); });
}

TEST_P(ForwardBinary, DivIsTrueDivision) {
  // Integer (and bool) operands divide as f32.
  const DType t = GetParam();
  const DType out = is_floating(t) ? t : DType::f32;
  check([](const Tensor& a, const Tensor& b) { return div(a, b); },
        [](double a, double b) { return a / b; }, t, out,
        [t](int64_t n, uint64_t s) { return sample(t, n, s); },
        [t](int64_t n, uint64_t s) { return nonzero(t, n, s); });
}

TEST_P(ForwardBinary, Pow) {
  // Positive bases; integer operands compute in f32.
  const DType t = GetParam();
  const DType out = is_floating(t) ? t : DType::f32;
  auto base = [t](int64_t n, uint64_t s) {
    return is_floating(t) ? uniform(n, s, 0.5, 2.0)
                          : (t == DType::boolean ? Values(n, 1.0) : integers(n, s, 1, 4));
  };
  auto expo = [t](int64_t n, uint64_t s) {
    return is_floating(t) ? uniform(n, s + 7, -2.0, 2.0)
                          : integers(n, s + 7, 0, t == DType::boolean ? 1 : 3);
  };
  check([](const Tensor& a, const Tensor& b) { return pow(a, b); },
        [](double a, double b) { return std::pow(a, b); }, t, out, base, expo);
}

INSTANTIATE_TEST_SUITE_P(AllDTypes, ForwardBinary, ::testing::ValuesIn(optest::all_dtypes()),
                         optest::DTypeName());

TEST(ForwardBinaryExtra, LargeBroadcastUsesThreads) {
  // 300 x 200 = 60000 outputs: past the parallel grain, with row and column broadcasts and a
  // transposed operand.
  const Tensor a = make(uniform(300 * 200, 1), {300, 200}, DType::f32);
  const Tensor row = make(uniform(200, 2), {200}, DType::f32);
  const Tensor col = make(uniform(300, 3), {300, 1}, DType::f32);
  const Tensor at = make(uniform(300 * 200, 4), {200, 300}, DType::f32).t();
  auto v = [](const Tensor& t) { return exadnn::testing::values(t); };
  EXPECT_TRUE(matches(a + row, DType::f32,
                      ref_binary(v(a), a.shape(), v(row), row.shape(), std::plus<>())));
  EXPECT_TRUE(matches(a * col, DType::f32,
                      ref_binary(v(a), a.shape(), v(col), col.shape(), std::multiplies<>())));
  EXPECT_TRUE(
      matches(at - a, DType::f32, ref_binary(v(at), at.shape(), v(a), a.shape(), std::minus<>())));
  EXPECT_TRUE(matches(col * row, DType::f32,
                      ref_binary(v(col), col.shape(), v(row), row.shape(), std::multiplies<>())));
}

TEST(ForwardBinaryExtra, MaximumMinimumPropagateNaN) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const Tensor a = make({nan, 1.0, 2.0}, {3}, DType::f32),
               b = make({0.0, nan, 1.0}, {3}, DType::f32);
  EXPECT_TRUE(matches(maximum(a, b), DType::f32, {{3}, {nan, nan, 2.0}}));
  EXPECT_TRUE(matches(minimum(a, b), DType::f32, {{3}, {nan, nan, 1.0}}));
}

// add_relu is relu(add) in one node: the same bits forward, and the same gradients for both
// operands (the fused kernel masks on its output, the two ops on the stored sum), in f32 and f64,
// with a broadcast operand, zeros, ties at zero and NaN; integer operands take the two ops.
TEST(ForwardBinaryExtra, AddReluEqualsReluOfAddBitForBit) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  for (DType dt : {DType::f32, DType::f64}) {
    Values av = uniform(2 * 3 * 4, 31, -2.0, 2.0);
    av[0] = 0.0, av[1] = -0.5, av[2] = nan, av[3] = 1e-30;
    const Values bv = {0.0, 0.5, -0.25, 1.0};  // broadcast along the last axis
    auto leaves = [&] {
      return std::pair{make(av, {2, 3, 4}, dt).requires_grad_(),
                       make(bv, {4}, dt).requires_grad_()};
    };
    auto [a1, b1] = leaves();
    auto [a2, b2] = leaves();
    const Tensor fused = add_relu(a1, b1), apart = relu(add(a2, b2));
    const Tensor g = make(uniform(2 * 3 * 4, 32, -1.0, 1.0), {2, 3, 4}, dt);
    fused.backward(g);
    apart.backward(g);
    const auto same_bits = [](const Tensor& x, const Tensor& y) {
      const std::vector<double> u = exadnn::testing::values(x), v = exadnn::testing::values(y);
      return u.size() == v.size() &&
             std::memcmp(u.data(), v.data(), u.size() * sizeof(double)) == 0;
    };
    EXPECT_EQ(fused.dtype(), dt);
    EXPECT_TRUE(same_bits(fused, apart)) << dtype_name(dt);
    EXPECT_TRUE(same_bits(a1.grad(), a2.grad())) << dtype_name(dt);
    EXPECT_TRUE(same_bits(b1.grad(), b2.grad())) << dtype_name(dt);
    EXPECT_EQ(exadnn::testing::values(fused)[2], 0.0) << "relu(NaN) is 0, as relu's own";
  }
  const Tensor i = make({-3, 1, 2}, {3}, DType::i32), j = make({1, 1, -5}, {3}, DType::i32);
  EXPECT_TRUE(matches(add_relu(i, j), DType::i32, {{3}, {0, 2, 0}}));
}

TEST(ForwardBinaryExtra, AddReluNamesItselfInErrors) {
  const Tensor a = make({1, 2, 3}, {3}, DType::f32), b = make({1, 2}, {2}, DType::f32);
  try {
    add_relu(a, b);
    FAIL() << "shapes [3] and [2] do not broadcast";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("add_relu"), std::string::npos) << e.what();
  }
  EXPECT_THROW(add_relu(a, Tensor()), Error);
}

// ---- promotion ----------------------------------------------------------------------------------

struct Promotion {
  DType a, b, expected;
};

TEST(ForwardPromotion, MixedDtypeArithmetic) {
  const std::vector<Promotion> cases{
      {DType::i32, DType::f32, DType::f32},     {DType::f32, DType::i32, DType::f32},
      {DType::f16, DType::bf16, DType::f32},    {DType::bf16, DType::f16, DType::f32},
      {DType::boolean, DType::i64, DType::i64}, {DType::i64, DType::boolean, DType::i64},
      {DType::u8, DType::i32, DType::i32},      {DType::i64, DType::f16, DType::f16},
      {DType::f32, DType::f64, DType::f64},     {DType::f16, DType::f32, DType::f32},
      {DType::i32, DType::i64, DType::i64},     {DType::u8, DType::boolean, DType::u8}};
  for (const Promotion& c : cases) {
    const Tensor a = make({1, 0, 3, 1, 2, 1}, {2, 3}, c.a);
    const Tensor b = make({1, 1, 0}, {3}, c.b);
    const auto ref = ref_binary(exadnn::testing::values(a), {2, 3}, exadnn::testing::values(b), {3},
                                std::plus<>());
    EXPECT_TRUE(matches(add(a, b), c.expected, ref)) << dtype_name(c.a) << " + " << dtype_name(c.b);
    const auto mref = ref_binary(exadnn::testing::values(a), {2, 3}, exadnn::testing::values(b),
                                 {3}, std::multiplies<>());
    EXPECT_TRUE(matches(mul(a, b), c.expected, mref))
        << dtype_name(c.a) << " * " << dtype_name(c.b);
  }
}

TEST(ForwardPromotion, IntegerDivisionGivesF32) {
  const Tensor a = from_vector<int32_t>({7, -7, 1, 9}), b = from_vector<int32_t>({2, 2, 3, -4});
  EXPECT_TRUE(matches(div(a, b), DType::f32, {{4}, {3.5, -3.5, 1.0 / 3.0, -2.25}}));
  EXPECT_TRUE(matches(a / b, DType::f32, {{4}, {3.5, -3.5, 1.0 / 3.0, -2.25}}));
  const Tensor c = from_vector<int64_t>({5, 3});
  EXPECT_TRUE(matches(c / from_vector<int64_t>({2, 4}), DType::f32, {{2}, {2.5, 0.75}}));
  EXPECT_TRUE(matches(from_vector<uint8_t>({1, 200}) / from_vector<uint8_t>({4, 8}), DType::f32,
                      {{2}, {0.25, 25.0}}));
}

TEST(ForwardPromotion, ScalarLike) {
  // A 0-d tensor whose dtype keeps the category of `like`: floats keep their dtype, integers stay
  // integer for integral values and become f32 otherwise.
  EXPECT_TRUE(matches(scalar_like(1.5, zeros({2}, DType::f16)), DType::f16, {{}, {1.5}}));
  EXPECT_TRUE(matches(scalar_like(-2.0, zeros({2}, DType::f64)), DType::f64, {{}, {-2.0}}));
  EXPECT_TRUE(matches(scalar_like(3.0, zeros({2}, DType::i32)), DType::i32, {{}, {3.0}}));
  EXPECT_TRUE(matches(scalar_like(2.5, zeros({2}, DType::i64)), DType::f32, {{}, {2.5}}));
  const Tensor u = scalar_like(4.0, zeros({2}, DType::u8));
  EXPECT_FALSE(is_floating(u.dtype()));
  EXPECT_EQ(u.dim(), 0);
  EXPECT_EQ(u.item<double>(), 4.0);
  EXPECT_TRUE(is_floating(scalar_like(0.5, zeros({2}, DType::boolean)).dtype()));
}

TEST(ForwardPromotion, ScalarOperandsKeepTheTensorCategory) {
  const Tensor i = from_vector<int32_t>({1, -2, 3});
  EXPECT_TRUE(matches(i * 2.0, DType::i32, {{3}, {2, -4, 6}}));
  EXPECT_TRUE(matches(i + 1.0, DType::i32, {{3}, {2, -1, 4}}));
  EXPECT_TRUE(matches(i * 2.5, DType::f32, {{3}, {2.5, -5.0, 7.5}}));
  EXPECT_TRUE(matches(1.0 - i, DType::i32, {{3}, {0, 3, -2}}));
  const Tensor h = make({0.5, 1.5, -2.0}, {3}, DType::f16);
  EXPECT_TRUE(matches(h + 1.0, DType::f16, {{3}, {1.5, 2.5, -1.0}}));
  EXPECT_TRUE(matches(2.0 / h, DType::f16, {{3}, {4.0, 4.0 / 3.0, -1.0}}));
  const Tensor bf = make({0.5, 1.5, -2.0}, {3}, DType::bf16);
  EXPECT_TRUE(matches(bf * 3.0, DType::bf16, {{3}, {1.5, 4.5, -6.0}}));
  const Tensor d = make({0.5, 1.5}, {2}, DType::f64);
  EXPECT_TRUE(matches(d - 0.25, DType::f64, {{2}, {0.25, 1.25}}));
  const Tensor f = make({0.5, 1.5}, {2}, DType::f32);
  EXPECT_TRUE(matches(f / 4.0, DType::f32, {{2}, {0.125, 0.375}}));
  const Tensor bo = make({1, 0, 1}, {3}, DType::boolean);
  const Tensor twice = bo * 2.0;
  EXPECT_FALSE(is_floating(twice.dtype()));
  EXPECT_EQ(exadnn::testing::values(twice), (Values{2, 0, 2}));
}

}  // namespace
