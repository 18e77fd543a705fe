// Forward checks of sum/mean/max/min/argmax/argmin/logsumexp over axis sets, per dtype and layout.
#include <gtest/gtest.h>

#include "op_test_util.h"

using namespace exadnn;
using exadnn::optest::make;
using exadnn::optest::matches;
using exadnn::optest::Ref;
using exadnn::optest::ref_arg;
using exadnn::optest::ref_reduce;
using exadnn::optest::Values;

namespace {

using ReduceOp = std::function<Tensor(const Tensor&, const Axes&, bool)>;
using Fold = std::function<double(const Values&)>;

struct AxisCase {
  Axes axes;
  bool keepdim;
};

const std::vector<AxisCase>& axis_cases() {
  static const std::vector<AxisCase> cases{{{0}, false},    {{1}, true},       {{2}, false},
                                           {{-1}, true},    {{0, 2}, false},   {{-1, -3}, true},
                                           {{1, 2}, false}, {{0, 1}, true},    {{}, false},
                                           {{}, true},      {{0, 1, 2}, false}};
  return cases;
}

std::string describe(const AxisCase& c) {
  std::string s = "{";
  for (size_t i = 0; i < c.axes.size(); ++i) s += (i ? ", " : "") + std::to_string(c.axes[i]);
  return s + (c.keepdim ? "} keepdim" : "}");
}

// [3,4,5] inputs of dtype t: contiguous, a permuted view of a [5,4,3] tensor, and a stepped slice
// of a [3,8,5] tensor.
std::vector<std::pair<std::string, Tensor>> layouts(DType t, uint64_t seed) {
  return {{"contiguous", make(optest::sample_for(t, 60, seed), {3, 4, 5}, t)},
          {"permuted", make(optest::sample_for(t, 60, seed + 1), {5, 4, 3}, t).permute({2, 1, 0})},
          {"sliced", make(optest::sample_for(t, 120, seed + 2), {3, 8, 5}, t).slice(1, 1, 8, 2)}};
}

// Checks op against fold over every axis case and layout, expecting dtype `out`.
void check(DType t, DType out, const ReduceOp& op, const Fold& fold, const char* name) {
  for (const auto& [layout, x] : layouts(t, 1)) {
    const Values xv = exadnn::testing::values(x);
    for (const AxisCase& c : axis_cases())
      EXPECT_TRUE(matches(op(x, c.axes, c.keepdim), out,
                          ref_reduce(xv, x.shape(), c.axes, c.keepdim, fold)))
          << name << " " << layout << " " << dtype_name(t) << " over " << describe(c);
  }
  // Leading axis of a contiguous [N, F] matrix (column reduction), its inner axis, and 3-D
  // reductions keeping a dense inner axis; large enough to run on several threads.
  struct Big {
    Shape shape;
    Axes axes;
  };
  uint64_t seed = 10;
  for (const Big& b : std::vector<Big>{{{300, 130}, {0}},
                                       {{300, 130}, {1}},
                                       {{5, 20}, {0}},
                                       {{7, 3}, {0}},
                                       {{30, 40, 30}, {0, 1}},
                                       {{30, 40, 30}, {2}},
                                       {{30, 40, 30}, {1}}}) {
    const Tensor x = make(optest::sample_for(t, b.shape.numel(), seed++), b.shape, t);
    const Values xv = exadnn::testing::values(x);
    EXPECT_TRUE(matches(op(x, b.axes, false), out, ref_reduce(xv, b.shape, b.axes, false, fold)))
        << name << " " << dtype_name(t) << " of " << b.shape << " over "
        << describe({b.axes, false});
    // the same over the transpose of the [N, F] matrix (its columns are strided rows)
    if (b.shape.size() == 2) {
      const Tensor xt = x.t();
      EXPECT_TRUE(matches(op(xt, b.axes, true), out,
                          ref_reduce(exadnn::testing::values(xt), xt.shape(), b.axes, true, fold)))
          << name << " " << dtype_name(t) << " of transposed " << b.shape << " over "
          << describe({b.axes, true});
    }
  }
}

class ForwardReduce : public ::testing::TestWithParam<DType> {};

DType sum_dtype(DType t) {
  return is_floating(t) ? t : DType::i64;
}  // integer sums are i64
DType float_dtype(DType t) {
  return is_floating(t) ? t : DType::f32;
}  // mean, logsumexp

TEST_P(ForwardReduce, Sum) {
  check(
      GetParam(), sum_dtype(GetParam()), [](auto& x, auto& a, bool k) { return sum(x, a, k); },
      optest::fold_sum, "sum");
}
TEST_P(ForwardReduce, Mean) {
  check(
      GetParam(), float_dtype(GetParam()), [](auto& x, auto& a, bool k) { return mean(x, a, k); },
      optest::fold_mean, "mean");
}
TEST_P(ForwardReduce, Max) {
  const DType t = GetParam();
  if (t == DType::boolean) {  // the CPU backend has no max kernel for bool
    EXPECT_EXADNN_ERROR(max(make({1, 0}, {2}, t)), optest::no_kernel("max"), optest::with_dtype(t));
    return;
  }
  check(
      t, t, [](auto& x, auto& a, bool k) { return max(x, a, k); }, optest::fold_max, "max");
}
TEST_P(ForwardReduce, Min) {
  const DType t = GetParam();
  if (t == DType::boolean) {
    EXPECT_EXADNN_ERROR(min(make({1, 0}, {2}, t)), optest::no_kernel("min"), optest::with_dtype(t));
    return;
  }
  check(
      t, t, [](auto& x, auto& a, bool k) { return min(x, a, k); }, optest::fold_min, "min");
}
TEST_P(ForwardReduce, Logsumexp) {
  check(
      GetParam(), float_dtype(GetParam()),
      [](auto& x, auto& a, bool k) { return logsumexp(x, a, k); }, optest::fold_logsumexp,
      "logsumexp");
}

TEST_P(ForwardReduce, ArgmaxArgmin) {
  const DType t = GetParam();
  if (t == DType::boolean) {
    EXPECT_EXADNN_ERROR(argmax(make({1, 0}, {2}, t), 0), optest::no_kernel("argmax"),
                        optest::with_dtype(t));
    EXPECT_EXADNN_ERROR(argmin(make({1, 0}, {2}, t), 0), optest::no_kernel("argmin"),
                        optest::with_dtype(t));
    return;
  }
  // Integer samples have ties: the first index wins.
  for (const auto& [layout, x] : layouts(t, 20)) {
    const Values xv = exadnn::testing::values(x);
    for (int64_t axis : {0, 1, 2, -1, -2})
      for (bool keepdim : {false, true}) {
        EXPECT_TRUE(matches(argmax(x, axis, keepdim), DType::i64,
                            ref_arg(xv, x.shape(), axis, keepdim, true)))
            << "argmax " << layout << " " << dtype_name(t) << " axis " << axis << " keepdim "
            << keepdim;
        EXPECT_TRUE(matches(argmin(x, axis, keepdim), DType::i64,
                            ref_arg(xv, x.shape(), axis, keepdim, false)))
            << "argmin " << layout << " " << dtype_name(t) << " axis " << axis << " keepdim "
            << keepdim;
      }
    // flattened
    EXPECT_TRUE(matches(argmax(x), DType::i64, {{}, {optest::fold_arg(xv, true)}})) << layout;
    EXPECT_TRUE(matches(argmin(x), DType::i64, {{}, {optest::fold_arg(xv, false)}})) << layout;
  }
  const Tensor big = make(optest::sample_for(t, 300 * 130, 30), {300, 130}, t);
  const Values bv = exadnn::testing::values(big);
  EXPECT_TRUE(matches(argmax(big, 1), DType::i64, ref_arg(bv, big.shape(), 1, false, true)));
  EXPECT_TRUE(matches(argmin(big, 0), DType::i64, ref_arg(bv, big.shape(), 0, false, false)));
}

INSTANTIATE_TEST_SUITE_P(AllDTypes, ForwardReduce, ::testing::ValuesIn(optest::all_dtypes()),
                         optest::DTypeName());

TEST(ForwardReduceExtra, EmptyInputs) {
  const Tensor x = zeros({0, 3}, DType::f32);
  EXPECT_TRUE(matches(sum(x, {0}), DType::f32, {{3}, {0, 0, 0}}));
  EXPECT_TRUE(matches(sum(x), DType::f32, {{}, {0}}));
  EXPECT_TRUE(matches(max(x, {1}), DType::f32, {{0}, {}}));  // nothing to reduce per row
  const Tensor wide = zeros({0, 20}, DType::f64);            // column-reduction path, no rows
  EXPECT_TRUE(matches(sum(wide, {0}), DType::f64, {Shape{20}, Values(20, 0.0)}));
}

TEST(ForwardReduceExtra, ZeroDimAndSizeOneAxes) {
  const Tensor s = make({2.5}, {}, DType::f32);
  EXPECT_TRUE(matches(sum(s), DType::f32, {{}, {2.5}}));
  EXPECT_TRUE(matches(max(s), DType::f32, {{}, {2.5}}));
  EXPECT_TRUE(matches(argmax(s), DType::i64, {{}, {0}}));
  const Tensor x = make({1, 5, 2}, {3, 1}, DType::f64);
  EXPECT_TRUE(matches(sum(x, {1}), DType::f64, {{3}, {1, 5, 2}}));
  EXPECT_TRUE(matches(max(x, {1}, true), DType::f64, {{3, 1}, {1, 5, 2}}));
}

TEST(ForwardReduceExtra, NaNPropagates) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const Tensor x = make({1.0, nan, 3.0, 4.0, 5.0, 6.0}, {2, 3}, DType::f32);
  EXPECT_TRUE(matches(max(x, {1}), DType::f32, {{2}, {nan, 6.0}}));
  EXPECT_TRUE(matches(min(x, {1}), DType::f32, {{2}, {nan, 4.0}}));
  EXPECT_TRUE(matches(sum(x, {1}), DType::f32, {{2}, {nan, 15.0}}));
  EXPECT_TRUE(matches(argmax(x, 1), DType::i64, {{2}, {1, 2}}));
}

TEST(ForwardReduceExtra, LogsumexpIsStable) {
  const double inf = std::numeric_limits<double>::infinity();
  const Tensor x = make({1000.0, 1000.0, -1000.0, -1000.0, -inf, -inf}, {3, 2}, DType::f64);
  EXPECT_TRUE(matches(logsumexp(x, {1}), DType::f64,
                      {{3}, {1000.0 + std::log(2.0), -1000.0 + std::log(2.0), -inf}}));
}

TEST(ForwardReduceExtra, ExpandedInputs) {
  // Stride-0 axes, reduced and kept, on both kernel paths (column and row).
  const Tensor row = make(optest::uniform(130, 40), {1, 130}, DType::f32);
  const Tensor col = make(optest::uniform(300, 41), {300, 1}, DType::f64);
  for (const Tensor& x : {row.expand({300, 130}), col.expand({300, 130})}) {
    const Values xv = exadnn::testing::values(x);
    for (int64_t axis : {0, 1}) {
      EXPECT_TRUE(matches(sum(x, {axis}), x.dtype(),
                          ref_reduce(xv, x.shape(), {axis}, false, optest::fold_sum)))
          << "sum axis " << axis << " of " << x.strides();
      EXPECT_TRUE(matches(max(x, {axis}, true), x.dtype(),
                          ref_reduce(xv, x.shape(), {axis}, true, optest::fold_max)))
          << "max axis " << axis << " of " << x.strides();
      EXPECT_TRUE(matches(argmin(x, axis), DType::i64, ref_arg(xv, x.shape(), axis, false, false)))
          << "argmin axis " << axis << " of " << x.strides();
    }
    EXPECT_TRUE(
        matches(mean(x), x.dtype(), ref_reduce(xv, x.shape(), {}, false, optest::fold_mean)));
  }
}

TEST(ForwardReduceExtra, IntegerMeanIsF32) {
  const Tensor x = from_vector<int32_t>({1, 2, 3, 4}, {2, 2});
  EXPECT_TRUE(matches(mean(x, {0}), DType::f32, {{2}, {2.0, 3.0}}));
  EXPECT_TRUE(matches(mean(x), DType::f32, {{}, {2.5}}));
}

}  // namespace
