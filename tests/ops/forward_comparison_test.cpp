// Forward checks of eq/ne/lt/le/gt/ge (bool results) and where, per dtype, with broadcasting.
#include <gtest/gtest.h>

#include "op_test_util.h"

using namespace exadnn;
using exadnn::optest::integers;
using exadnn::optest::make;
using exadnn::optest::matches;
using exadnn::optest::ref_binary;
using exadnn::optest::ref_where;
using exadnn::optest::Values;

namespace {

class ForwardCompare : public ::testing::TestWithParam<DType> {};

// Values with many ties: small integers, halves for floating types, 0/1 for bool.
Values tied(DType t, int64_t n, uint64_t seed) {
  if (t == DType::boolean) return integers(n, seed, 0, 1);
  Values v = integers(n, seed, t == DType::u8 ? 0 : -2, t == DType::u8 ? 4 : 2);
  if (is_floating(t))
    for (double& x : v) x *= 0.5;
  return v;
}

using CompareOp = std::function<Tensor(const Tensor&, const Tensor&)>;

void check_compare(DType t, const CompareOp& op, const std::function<bool(double, double)>& f,
                   const char* name) {
  const auto ref = [&](double a, double b) { return f(a, b) ? 1.0 : 0.0; };
  struct Case {
    Shape a, b;
  };
  uint64_t seed = 1;
  for (const Case& c :
       std::vector<Case>{{{3, 4}, {3, 4}}, {{3, 1}, {4}}, {{2, 3, 4}, {4}}, {{}, {5}}}) {
    const Tensor a = make(tied(t, c.a.numel(), seed++), c.a, t);
    const Tensor b = make(tied(t, c.b.numel(), seed++), c.b, t);
    EXPECT_TRUE(matches(op(a, b), DType::boolean,
                        ref_binary(exadnn::testing::values(a), a.shape(),
                                   exadnn::testing::values(b), b.shape(), ref)))
        << name << " " << a.shape() << " with " << b.shape() << ", " << dtype_name(t);
  }
  // strided operands
  const Tensor a = make(tied(t, 12, seed++), {4, 3}, t).t();
  const Tensor b = make(tied(t, 24, seed++), {3, 8}, t).slice(1, 1, 8, 2);
  EXPECT_TRUE(matches(op(a, b), DType::boolean,
                      ref_binary(exadnn::testing::values(a), a.shape(), exadnn::testing::values(b),
                                 b.shape(), ref)))
      << name << " strided, " << dtype_name(t);
}

TEST_P(ForwardCompare, Eq) {
  check_compare(
      GetParam(), [](auto& a, auto& b) { return eq(a, b); }, std::equal_to<>(), "eq");
}
TEST_P(ForwardCompare, Ne) {
  check_compare(
      GetParam(), [](auto& a, auto& b) { return ne(a, b); }, std::not_equal_to<>(), "ne");
}
TEST_P(ForwardCompare, Lt) {
  check_compare(
      GetParam(), [](auto& a, auto& b) { return lt(a, b); }, std::less<>(), "lt");
}
TEST_P(ForwardCompare, Le) {
  check_compare(
      GetParam(), [](auto& a, auto& b) { return le(a, b); }, std::less_equal<>(), "le");
}
TEST_P(ForwardCompare, Gt) {
  check_compare(
      GetParam(), [](auto& a, auto& b) { return gt(a, b); }, std::greater<>(), "gt");
}
TEST_P(ForwardCompare, Ge) {
  check_compare(
      GetParam(), [](auto& a, auto& b) { return ge(a, b); }, std::greater_equal<>(), "ge");
}

TEST_P(ForwardCompare, Where) {
  const DType t = GetParam();
  struct Case {
    Shape c, a, b;
  };
  uint64_t seed = 50;
  for (const Case& k : std::vector<Case>{{{3, 4}, {3, 4}, {3, 4}},
                                         {{3, 1}, {4}, {2, 3, 4}},
                                         {{2, 3, 4}, {}, {3, 1}},
                                         {{4}, {3, 4}, {}}}) {
    const Tensor c = make(integers(k.c.numel(), seed++, 0, 1), k.c, DType::boolean);
    const Tensor a = make(optest::sample_for(t, k.a.numel(), seed++), k.a, t);
    const Tensor b = make(optest::sample_for(t, k.b.numel(), seed++), k.b, t);
    EXPECT_TRUE(matches(where(c, a, b), t,
                        ref_where(exadnn::testing::values(c), c.shape(), exadnn::testing::values(a),
                                  a.shape(), exadnn::testing::values(b), b.shape())))
        << "cond " << c.shape() << ", a " << a.shape() << ", b " << b.shape() << ", "
        << dtype_name(t);
  }
  // strided condition and operands
  const Tensor c = make(integers(12, seed++, 0, 1), {4, 3}, DType::boolean).t();
  const Tensor a = make(optest::sample_for(t, 24, seed++), {3, 8}, t).slice(1, 0, 8, 2);
  const Tensor b = make(optest::sample_for(t, 12, seed++), {4, 3}, t).t();
  EXPECT_TRUE(matches(where(c, a, b), t,
                      ref_where(exadnn::testing::values(c), c.shape(), exadnn::testing::values(a),
                                a.shape(), exadnn::testing::values(b), b.shape())))
      << "strided, " << dtype_name(t);
}

INSTANTIATE_TEST_SUITE_P(AllDTypes, ForwardCompare, ::testing::ValuesIn(optest::all_dtypes()),
                         optest::DTypeName());

TEST(ForwardCompareExtra, MixedDtypesCompareInThePromotedType) {
  // i32 vs f32 compares as f32 (2 < 2.5); f16 vs bf16 as f32.
  const Tensor i = from_vector<int32_t>({2, 3, -1});
  const Tensor f = make({2.5, 3.0, -1.5}, {3}, DType::f32);
  EXPECT_TRUE(matches(lt(i, f), DType::boolean, {{3}, {1, 0, 0}}));
  EXPECT_TRUE(matches(eq(i, f), DType::boolean, {{3}, {0, 1, 0}}));
  EXPECT_TRUE(matches(ge(i, f), DType::boolean, {{3}, {0, 1, 1}}));
  const Tensor h = make({0.5, 1.0}, {2}, DType::f16), bf = make({0.5, 2.0}, {2}, DType::bf16);
  EXPECT_TRUE(matches(eq(h, bf), DType::boolean, {{2}, {1, 0}}));
  const Tensor u = from_vector<uint8_t>({0, 200});
  const Tensor l = from_vector<int64_t>({-1, 200});
  EXPECT_TRUE(matches(gt(u, l), DType::boolean, {{2}, {1, 0}}));
}

TEST(ForwardCompareExtra, NaNComparesUnequal) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const Tensor a = make({nan, 1.0}, {2}, DType::f64);
  EXPECT_TRUE(matches(eq(a, a), DType::boolean, {{2}, {0, 1}}));
  EXPECT_TRUE(matches(ne(a, a), DType::boolean, {{2}, {1, 0}}));
  EXPECT_TRUE(matches(le(a, a), DType::boolean, {{2}, {0, 1}}));
}

TEST(ForwardCompareExtra, WherePromotesBranches) {
  const Tensor c = make({1, 0, 1}, {3}, DType::boolean);
  const Tensor a = from_vector<int32_t>({1, 2, 3});
  const Tensor b = make({0.5, 1.5, 2.5}, {3}, DType::f32);
  EXPECT_TRUE(matches(where(c, a, b), DType::f32, {{3}, {1.0, 1.5, 3.0}}));
  EXPECT_TRUE(matches(where(c, b, a), DType::f32, {{3}, {0.5, 2.0, 2.5}}));
}

TEST(ForwardCompareExtra, LargeComparisonUsesThreads) {
  const Tensor a = make(optest::uniform(300 * 200, 5), {300, 200}, DType::f32);
  const Tensor b = make(optest::uniform(200, 6), {200}, DType::f32);
  EXPECT_TRUE(matches(gt(a, b), DType::boolean,
                      ref_binary(exadnn::testing::values(a), a.shape(), exadnn::testing::values(b),
                                 b.shape(), [](double x, double y) { return x > y ? 1.0 : 0.0; })));
}

}  // namespace
