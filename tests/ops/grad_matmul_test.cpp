// Finite-difference gradient checks (f64) of matmul over every operand-rank combination.
#include <gtest/gtest.h>

#include "op_test_util.h"

using namespace exadnn;
using exadnn::testing::all_close;
using exadnn::testing::gradcheck;
using exadnn::testing::random_leaf;
using exadnn::testing::strided_leaf;
using exadnn::testing::tolerance_for;

namespace {

::testing::AssertionResult check_matmul(const Tensor& a, const Tensor& b) {
  return gradcheck([](const std::vector<Tensor>& in) { return matmul(in[0], in[1]); }, {a, b});
}

// Regression: 1-D·1-D matmul throws "squeeze: axis -2 is out of range for a tensor with 1
// dimensions": src/ops/linalg.cpp:142-143 squeezes the result [1,1] to [1] for the vector b, then
// squeezes axis -2 of that 1-D result for the vector a; it should give a 0-d dot product.
TEST(GradMatmul, VectorVector) {
  EXPECT_TRUE(check_matmul(random_leaf({5}, 1), random_leaf({5}, 2)));
}
TEST(GradMatmul, VectorMatrix) {
  EXPECT_TRUE(check_matmul(random_leaf({4}, 3), random_leaf({4, 3}, 4)));
}
TEST(GradMatmul, MatrixVector) {
  EXPECT_TRUE(check_matmul(random_leaf({3, 4}, 5), random_leaf({4}, 6)));
}
TEST(GradMatmul, MatrixMatrix) {
  EXPECT_TRUE(check_matmul(random_leaf({3, 4}, 7), random_leaf({4, 2}, 8)));
}
TEST(GradMatmul, Batched3D) {
  EXPECT_TRUE(check_matmul(random_leaf({2, 3, 4}, 9), random_leaf({2, 4, 5}, 10)));
}
TEST(GradMatmul, BatchBroadcast) {
  // [2,1,3,4] · [5,4,2] -> [2,5,3,2]; both gradients are summed over their broadcast batch axes.
  EXPECT_TRUE(check_matmul(random_leaf({2, 1, 3, 4}, 11), random_leaf({5, 4, 2}, 12)));
}
TEST(GradMatmul, Batched3DTimes2D) {
  EXPECT_TRUE(check_matmul(random_leaf({3, 2, 4}, 13), random_leaf({4, 5}, 14)));
}
TEST(GradMatmul, Matrix2DTimes3D) {
  EXPECT_TRUE(check_matmul(random_leaf({2, 4}, 15), random_leaf({3, 4, 5}, 16)));
}
TEST(GradMatmul, VectorTimesBatched) {
  EXPECT_TRUE(check_matmul(random_leaf({4}, 17), random_leaf({3, 4, 2}, 18)));
}
TEST(GradMatmul, BatchedTimesVector) {
  EXPECT_TRUE(check_matmul(random_leaf({3, 2, 4}, 19), random_leaf({4}, 20)));
}

TEST(GradMatmul, StridedLeaves) {
  EXPECT_TRUE(check_matmul(strided_leaf({3, 4}, 21), strided_leaf({4, 2}, 22)));
  EXPECT_TRUE(check_matmul(strided_leaf({2, 3, 4}, 23), strided_leaf({2, 4, 5}, 24)));
  EXPECT_TRUE(check_matmul(strided_leaf({2, 1, 3, 4}, 25), random_leaf({5, 4, 2}, 26)));
}

TEST(GradMatmul, TransposedViewsInside) {
  const Tensor a = random_leaf({4, 3}, 27), b = random_leaf({2, 4}, 28);
  EXPECT_TRUE(gradcheck([](const std::vector<Tensor>& in) { return matmul(in[0].t(), in[1].t()); },
                        {a, b}));
  const Tensor c = random_leaf({2, 4, 3}, 29), d = random_leaf({2, 5, 4}, 30);
  EXPECT_TRUE(gradcheck(
      [](const std::vector<Tensor>& in) {
        return matmul(in[0].transpose(1, 2), in[1].transpose(-1, -2));
      },
      {c, d}));
}

TEST(GradMatmul, SlicedOperands) {
  // Column slices (leading dimension larger than the row) and a row slice with step.
  const Tensor a = random_leaf({3, 7}, 31), b = random_leaf({8, 2}, 32);
  EXPECT_TRUE(gradcheck(
      [](const std::vector<Tensor>& in) {
        return matmul(in[0].narrow(1, 1, 4), in[1].slice(0, 0, 8, 2));
      },
      {a, b}));
  const Tensor v = random_leaf({9}, 33), m = random_leaf({3, 5}, 34);
  EXPECT_TRUE(gradcheck(
      [](const std::vector<Tensor>& in) {
        return matmul(in[0].slice(0, 1, 9, 3), in[1].narrow(1, 0, 3));
      },
      {v, m}));
}

TEST(GradMatmul, SameOperandTwice) {
  const Tensor a = random_leaf({3, 3}, 35);
  EXPECT_TRUE(
      gradcheck([](const std::vector<Tensor>& in) { return matmul(in[0], in[0].t()); }, {a}));
}

TEST(GradMatmul, GradientShapes) {
  const Tensor a = random_leaf({2, 1, 3, 4}, 36), b = random_leaf({5, 4, 2}, 37);
  sum(matmul(a, b)).backward();
  ASSERT_TRUE(a.grad().defined() && b.grad().defined());
  EXPECT_EQ(a.grad().shape(), a.shape());
  EXPECT_EQ(b.grad().shape(), b.shape());
}

}  // namespace
