// Forward checks of views and conversions: each output element against index arithmetic.
#include <gtest/gtest.h>

#include "op_test_util.h"

using namespace exadnn;
using exadnn::optest::make;
using exadnn::optest::matches;
using exadnn::optest::ravel;
using exadnn::optest::Ref;
using exadnn::optest::unravel;
using exadnn::optest::Values;

namespace {

using Index = std::vector<int64_t>;

// out[i] = x[source(i)] for every index i of out_shape.
Ref gather(const Values& x, const Shape& x_shape, const Shape& out_shape,
           const std::function<Index(const Index&)>& source) {
  Ref r{out_shape, Values(static_cast<size_t>(out_shape.numel()))};
  for (int64_t i = 0; i < out_shape.numel(); ++i)
    r.values[i] = x[ravel(source(unravel(i, out_shape)), x_shape)];
  return r;
}

class ForwardView : public ::testing::TestWithParam<DType> {};

TEST_P(ForwardView, ReshapeViewFlattenSqueezeUnsqueeze) {
  const DType t = GetParam();
  const Tensor x = make(optest::sample_for(t, 24, 1), {2, 3, 4}, t);
  const Values v = exadnn::testing::values(x);
  EXPECT_TRUE(matches(x.reshape({4, 6}), t, {{4, 6}, v}));
  EXPECT_TRUE(matches(x.reshape({-1}), t, {{24}, v}));
  EXPECT_TRUE(matches(x.view({3, 8}), t, {{3, 8}, v}));
  EXPECT_TRUE(matches(x.flatten(1), t, {{2, 12}, v}));
  EXPECT_TRUE(matches(x.flatten(0, 1), t, {{6, 4}, v}));
  EXPECT_TRUE(matches(x.unsqueeze(1), t, {{2, 1, 3, 4}, v}));
  EXPECT_TRUE(matches(x.unsqueeze(-1), t, {{2, 3, 4, 1}, v}));
  EXPECT_TRUE(matches(x.reshape({2, 1, 12, 1}).squeeze(), t, {{2, 12}, v}));
  EXPECT_TRUE(matches(x.reshape({1, 24}).squeeze(0), t, {{24}, v}));
  EXPECT_TRUE(matches(x.reshape({1, 24}).squeeze(1), t, {{1, 24}, v}));  // not size 1: unchanged
  // views of contiguous memory share it
  EXPECT_TRUE(x.reshape({4, 6}).shares_storage_with(x));
  EXPECT_TRUE(x.view({24}).shares_storage_with(x));
  // reshape of a transposed tensor copies, with the transposed order
  const Tensor xt = x.transpose(0, 2);  // [4,3,2]
  const Ref tref = gather(v, {2, 3, 4}, {4, 3, 2}, [](const Index& i) {
    return Index{i[2], i[1], i[0]};
  });
  EXPECT_TRUE(matches(xt.reshape({24}), t, {{24}, tref.values}));
  EXPECT_TRUE(matches(xt.flatten(), t, {{24}, tref.values}));
}

TEST_P(ForwardView, PermuteTransposeT) {
  const DType t = GetParam();
  const Tensor x = make(optest::sample_for(t, 24, 2), {2, 3, 4}, t);
  const Values v = exadnn::testing::values(x);
  EXPECT_TRUE(matches(x.permute({2, 0, 1}), t, gather(v, {2, 3, 4}, {4, 2, 3}, [](const Index& i) {
                        return Index{i[1], i[2], i[0]};
                      })));
  EXPECT_TRUE(matches(x.transpose(0, 1), t, gather(v, {2, 3, 4}, {3, 2, 4}, [](const Index& i) {
                        return Index{i[1], i[0], i[2]};
                      })));
  EXPECT_TRUE(matches(x.transpose(-1, 0), t, gather(v, {2, 3, 4}, {4, 3, 2}, [](const Index& i) {
                        return Index{i[2], i[1], i[0]};
                      })));
  const Tensor m = make(optest::sample_for(t, 6, 3), {2, 3}, t);
  EXPECT_TRUE(
      matches(m.t(), t, gather(exadnn::testing::values(m), {2, 3}, {3, 2}, [](const Index& i) {
                return Index{i[1], i[0]};
              })));
  EXPECT_TRUE(x.permute({2, 0, 1}).shares_storage_with(x));
}

TEST_P(ForwardView, NarrowSelectSlice) {
  const DType t = GetParam();
  const Tensor x = make(optest::sample_for(t, 5 * 7, 4), {5, 7}, t);
  const Values v = exadnn::testing::values(x);
  const Shape s{5, 7};
  EXPECT_TRUE(matches(x.narrow(1, 2, 3), t, gather(v, s, {5, 3}, [](const Index& i) {
                        return Index{i[0], i[1] + 2};
                      })));
  EXPECT_TRUE(matches(x.narrow(0, 4, 1), t, gather(v, s, {1, 7}, [](const Index& i) {
                        return Index{4, i[1]};
                      })));
  EXPECT_TRUE(matches(x.select(0, 3), t, gather(v, s, {7}, [](const Index& i) {
                        return Index{3, i[0]};
                      })));
  EXPECT_TRUE(matches(x.select(1, -1), t, gather(v, s, {5}, [](const Index& i) {
                        return Index{i[0], 6};
                      })));
  EXPECT_TRUE(matches(x[2], t, gather(v, s, {7}, [](const Index& i) { return Index{2, i[0]}; })));
  EXPECT_TRUE(matches(x.slice(1, 1, 7, 2), t, gather(v, s, {5, 3}, [](const Index& i) {
                        return Index{i[0], 1 + 2 * i[1]};
                      })));
  EXPECT_TRUE(matches(x.slice(1, 0, 7, 3), t, gather(v, s, {5, 3}, [](const Index& i) {
                        return Index{i[0], 3 * i[1]};
                      })));
  EXPECT_TRUE(matches(x.slice(0, -3, -1), t, gather(v, s, {2, 7}, [](const Index& i) {
                        return Index{2 + i[0], i[1]};
                      })));
  EXPECT_TRUE(matches(x.slice(0, 2, 100), t, gather(v, s, {3, 7}, [](const Index& i) {
                        return Index{2 + i[0], i[1]};
                      })));
  EXPECT_TRUE(matches(x.slice(0, 4, 2), t, {{0, 7}, {}}));  // empty range
  // views of views: a slice of a transpose
  EXPECT_TRUE(
      matches(x.t().slice(0, 1, 7, 3).narrow(1, 1, 3), t, gather(v, s, {2, 3}, [](const Index& i) {
                return Index{1 + i[1], 1 + 3 * i[0]};
              })));
  EXPECT_TRUE(x.slice(1, 1, 7, 2).shares_storage_with(x));
}

TEST_P(ForwardView, Expand) {
  const DType t = GetParam();
  const Tensor col = make(optest::sample_for(t, 3, 5), {3, 1}, t);
  const Values v = exadnn::testing::values(col);
  EXPECT_TRUE(matches(col.expand({2, 3, 4}), t, gather(v, {3, 1}, {2, 3, 4}, [](const Index& i) {
                        return Index{i[1], 0};
                      })));
  EXPECT_TRUE(matches(col.expand({-1, 5}), t, gather(v, {3, 1}, {3, 5}, [](const Index& i) {
                        return Index{i[0], 0};
                      })));
  EXPECT_TRUE(col.expand({3, 4}).shares_storage_with(col));
  // contiguous() materialises the broadcast
  const Tensor dense = col.expand({3, 4}).contiguous();
  EXPECT_TRUE(dense.is_contiguous());
  EXPECT_TRUE(matches(dense, t, gather(v, {3, 1}, {3, 4}, [](const Index& i) {
                        return Index{i[0], 0};
                      })));
}

TEST_P(ForwardView, ContiguousAndClone) {
  const DType t = GetParam();
  const Tensor x = make(optest::sample_for(t, 12, 6), {3, 4}, t);
  const Values v = exadnn::testing::values(x);
  EXPECT_TRUE(x.contiguous().shares_storage_with(x));  // already contiguous: itself
  const Tensor c = x.t().contiguous();
  EXPECT_TRUE(c.is_contiguous());
  EXPECT_FALSE(c.shares_storage_with(x));
  EXPECT_TRUE(matches(c, t, gather(v, {3, 4}, {4, 3}, [](const Index& i) {
                        return Index{i[1], i[0]};
                      })));
  const Tensor k = x.clone();
  EXPECT_FALSE(k.shares_storage_with(x));
  EXPECT_TRUE(matches(k, t, {{3, 4}, v}));
  const Tensor ks = x.slice(1, 0, 4, 2).clone();
  EXPECT_TRUE(ks.is_contiguous());
  EXPECT_TRUE(matches(ks, t, gather(v, {3, 4}, {3, 2}, [](const Index& i) {
                        return Index{i[0], 2 * i[1]};
                      })));
}

TEST_P(ForwardView, ToEveryDtype) {
  // Values 0..4 are exact in every dtype; bool maps non-zero to 1.
  const DType from = GetParam();
  const Values v = from == DType::boolean ? Values{0, 1, 1, 0, 1, 1} : Values{0, 1, 2, 3, 4, 0};
  const Tensor x = make(v, {2, 3}, from);
  for (DType to : optest::all_dtypes()) {
    Values expected = v;
    if (to == DType::boolean)
      for (double& e : expected) e = e != 0.0;
    EXPECT_TRUE(matches(x.to(to), to, {{2, 3}, expected}))
        << dtype_name(from) << " -> " << dtype_name(to);
    Values expected_t = {expected[0], expected[3], expected[1],
                         expected[4], expected[2], expected[5]};
    EXPECT_TRUE(matches(x.t().to(to), to, {{3, 2}, expected_t}))
        << "strided " << dtype_name(from) << " -> " << dtype_name(to);
  }
  EXPECT_TRUE(x.to(from).shares_storage_with(x));  // same dtype: no copy
}

INSTANTIATE_TEST_SUITE_P(AllDTypes, ForwardView, ::testing::ValuesIn(optest::all_dtypes()),
                         optest::DTypeName());

TEST(ForwardViewExtra, ToRoundsAndSaturates) {
  // f64 -> f16 / bf16 round to nearest; float -> integer truncates toward zero and saturates.
  const Tensor x = make({1.0 + 1.0 / 4096.0, 3.14159, 70000.0, -2.7}, {4}, DType::f64);
  EXPECT_TRUE(
      matches(x.to(DType::f16), DType::f16,
              {{4}, {1.0, 3.140625, std::numeric_limits<double>::infinity(), -2.69921875}}));
  EXPECT_TRUE(matches(x.to(DType::bf16), DType::bf16, {{4}, {1.0, 3.140625, 70144.0, -2.703125}}));
  EXPECT_TRUE(matches(make({2.9, -2.9, 1e12, -1e12}, {4}, DType::f64).to(DType::i32), DType::i32,
                      {{4}, {2, -2, 2147483647.0, -2147483648.0}}));
  EXPECT_TRUE(matches(make({300.0, -5.0, 7.5}, {3}, DType::f32).to(DType::u8), DType::u8,
                      {{3}, {255, 0, 7}}));
}

}  // namespace
