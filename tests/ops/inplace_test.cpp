// The in-place helpers copy_, fill_, add_ and mul_: strided targets, broadcasting, conversion.
#include <gtest/gtest.h>

#include "op_test_util.h"

using namespace exadnn;
using exadnn::optest::make;
using exadnn::optest::matches;
using exadnn::optest::Ref;
using exadnn::optest::Values;

namespace {

TEST(InplaceCopy, IntoStridedViewWithBroadcastAndConversion) {
  // dst: every other column of a [3,6] f64 tensor; src: an i32 row broadcast over the rows.
  const Tensor base = zeros({3, 6}, DType::f64);
  const Tensor view = base.slice(1, 0, 6, 2);
  copy_(view, from_vector<int32_t>({1, -2, 3}));
  EXPECT_TRUE(matches(base, DType::f64,
                      {{3, 6}, {1, 0, -2, 0, 3, 0, 1, 0, -2, 0, 3, 0, 1, 0, -2, 0, 3, 0}}));
  // a transposed view receiving a column broadcast from f32
  const Tensor m = zeros({2, 3}, DType::i64);
  copy_(m.t(), make({7, 8, 9}, {3, 1}, DType::f32));
  EXPECT_TRUE(matches(m, DType::i64, {{2, 3}, {7, 8, 9, 7, 8, 9}}));
}

TEST(InplaceCopy, ConvertsBetweenEveryDtype) {
  const Values v{0, 1, 3, 2};
  for (DType from : optest::all_dtypes())
    for (DType to : optest::all_dtypes()) {
      const Tensor src = make(from == DType::boolean ? Values{0, 1, 1, 1} : v, {2, 2}, from);
      const Tensor dst = zeros({2, 2}, to);
      copy_(dst, src);
      Values expected = exadnn::testing::values(src);
      if (to == DType::boolean)
        for (double& x : expected) x = x != 0.0;
      EXPECT_TRUE(matches(dst, to, {{2, 2}, expected}))
          << dtype_name(from) << " -> " << dtype_name(to);
    }
}

TEST(InplaceCopy, FromStridedSourceIntoStridedDestination) {
  const Tensor src = make(optest::uniform(20, 1), {4, 5}, DType::f32);
  const Tensor dst = zeros({5, 8}, DType::f32);
  copy_(dst.narrow(1, 2, 4), src.t());  // [5,4] strided on both sides
  const Values s = exadnn::testing::values(src);
  Values expected(40, 0.0);
  for (int64_t i = 0; i < 5; ++i)
    for (int64_t j = 0; j < 4; ++j) expected[i * 8 + 2 + j] = s[j * 5 + i];
  EXPECT_TRUE(matches(dst, DType::f32, {{5, 8}, expected}));
}

TEST(InplaceCopy, RejectsShapesThatDoNotBroadcastToDestination) {
  const Tensor dst = zeros({2, 3}, DType::f32);
  EXPECT_EXADNN_ERROR(copy_(dst, zeros({3, 3}, DType::f32)), "copy_", "[3, 3]", "[2, 3]");
  EXPECT_EXADNN_ERROR(copy_(dst, zeros({2, 2, 3}, DType::f32)), "copy_", "[2, 2, 3]", "[2, 3]");
}

TEST(InplaceFill, FillsViewsOnly) {
  const Tensor x = zeros({3, 4}, DType::f32);
  fill_(x.select(1, 2), 5.5);
  fill_(x.narrow(0, 2, 1), -1.0);
  EXPECT_TRUE(matches(x, DType::f32, {{3, 4}, {0, 0, 5.5, 0, 0, 0, 5.5, 0, -1, -1, -1, -1}}));
  const Tensor i = zeros({2, 2}, DType::i32);
  fill_(i.t(), 7);
  EXPECT_TRUE(matches(i, DType::i32, {{2, 2}, {7, 7, 7, 7}}));
  const Tensor h = zeros({3}, DType::bf16);
  fill_(h, 0.5);
  EXPECT_TRUE(matches(h, DType::bf16, {{3}, {0.5, 0.5, 0.5}}));
}

TEST(InplaceAdd, WithAlphaAndBroadcast) {
  const Tensor x = make({1, 2, 3, 4, 5, 6}, {2, 3}, DType::f32);
  add_(x, make({10, 20, 30}, {3}, DType::f64), 0.5);
  EXPECT_TRUE(matches(x, DType::f32, {{2, 3}, {6, 12, 18, 9, 15, 21}}));
  add_(x, make({1, 1, 1, 1, 1, 1}, {2, 3}, DType::f32));  // alpha defaults to 1
  EXPECT_TRUE(matches(x, DType::f32, {{2, 3}, {7, 13, 19, 10, 16, 22}}));
  // a strided destination, negative alpha
  const Tensor y = make({1, 2, 3, 4}, {2, 2}, DType::f64);
  add_(y.t(), make({1, 2, 3, 4}, {2, 2}, DType::f64), -2.0);  // y.t()[i][j] -= 2 * src[i][j]
  EXPECT_TRUE(matches(y, DType::f64, {{2, 2}, {1 - 2, 2 - 6, 3 - 4, 4 - 8}}));
  // integer destination
  const Tensor k = from_vector<int64_t>({1, 2, 3});
  add_(k, from_vector<int64_t>({4, 5, 6}), 3.0);
  EXPECT_TRUE(matches(k, DType::i64, {{3}, {13, 17, 21}}));
}

TEST(InplaceMul, ScalesEveryElement) {
  const Tensor x = make({1, -2, 3, 4}, {2, 2}, DType::f64);
  mul_(x, -0.5);
  EXPECT_TRUE(matches(x, DType::f64, {{2, 2}, {-0.5, 1, -1.5, -2}}));
  const Tensor y = make({1, 2, 3, 4, 5, 6}, {2, 3}, DType::f32);
  mul_(y.slice(1, 0, 3, 2), 10.0);
  EXPECT_TRUE(matches(y, DType::f32, {{2, 3}, {10, 2, 30, 40, 5, 60}}));
  const Tensor h = make({1.5, -2.0}, {2}, DType::f16);
  mul_(h, 2.0);
  EXPECT_TRUE(matches(h, DType::f16, {{2}, {3.0, -4.0}}));
}

TEST(InplaceScaledCopy, WritesScaledSourceConvertedAndBroadcast) {
  const Tensor dst = zeros({2, 3}, DType::f32);
  scaled_copy_(dst, make({1, -2, 3, 4, 5, 6}, {2, 3}, DType::f64), 0.25);
  EXPECT_TRUE(matches(dst, DType::f32, {{2, 3}, {0.25, -0.5, 0.75, 1, 1.25, 1.5}}));
  scaled_copy_(dst.slice(1, 0, 3, 2), make({2, 4}, {2}, DType::f32), -1.0);  // [2] over [2, 2]
  EXPECT_TRUE(matches(dst, DType::f32, {{2, 3}, {-2, -0.5, -4, -2, 1.25, -4}}));
  const Tensor same = make({1, 2, 3}, {3}, DType::bf16);
  scaled_copy_(same, same, 2.0);  // source aliasing the destination
  EXPECT_TRUE(matches(same, DType::bf16, {{3}, {2, 4, 6}}));
  EXPECT_EXADNN_ERROR(scaled_copy_(dst, zeros({4}, DType::f32), 1.0), "scaled_copy_",
                      "cannot be broadcast");
}

TEST(InplaceAutograd, RequiresGradOutsideNoGradThrows) {
  const Tensor w = exadnn::testing::random_leaf({2, 3}, 1);
  const Tensor src = zeros({2, 3}, DType::f64);
  EXPECT_EXADNN_ERROR(copy_(w, src), "copy_", "requires grad", "NoGradGuard");
  EXPECT_EXADNN_ERROR(fill_(w, 1.0), "fill_", "requires grad");
  EXPECT_EXADNN_ERROR(add_(w, src, 2.0), "add_", "requires grad");
  EXPECT_EXADNN_ERROR(mul_(w, 2.0), "mul_", "requires grad");
  EXPECT_EXADNN_ERROR(scaled_copy_(w, src, 2.0), "scaled_copy_", "requires grad");
  // a non-leaf that requires grad (the output of an op) too
  const Tensor y = w * 2.0;
  EXPECT_EXADNN_ERROR(mul_(y, 2.0), "mul_", "requires grad");
  // unchanged by the rejected updates
  EXPECT_TRUE(matches(w, DType::f64,
                      {{2, 3}, exadnn::testing::values(exadnn::testing::random_leaf({2, 3}, 1))}));
}

TEST(InplaceAutograd, AllowedUnderNoGradGuard) {
  // An optimizer step: w -= lr * grad under NoGradGuard; w stays a leaf that requires grad.
  const Tensor w = optest::leaf({1.0, 2.0, 3.0}, {3});
  sum(w * w).backward();
  {
    NoGradGuard no_grad;
    add_(w, w.grad(), -0.25);
  }
  EXPECT_TRUE(matches(w, DType::f64, {{3}, {0.5, 1.0, 1.5}}));
  EXPECT_TRUE(w.requires_grad());
  EXPECT_TRUE(w.is_leaf());
  {
    NoGradGuard no_grad;
    mul_(w, 2.0);
    fill_(w.narrow(0, 0, 1), 9.0);
  }
  EXPECT_TRUE(matches(w, DType::f64, {{3}, {9.0, 2.0, 3.0}}));
}

}  // namespace
