// cat: values against hand-built blocks, finite-difference gradients, and the inputs it refuses.
#include "exadnn/ops/concat.h"

#include <gtest/gtest.h>

#include "op_test_util.h"

using namespace exadnn;
using exadnn::testing::gradcheck;
using exadnn::testing::random_leaf;
using exadnn::testing::values;

TEST(Concat, JoinsBlocksAlongAnyDimension) {
  const Tensor a = from_vector<double>({1, 2, 3, 4}, {2, 2});
  const Tensor b = from_vector<double>({5, 6}, {1, 2});
  EXPECT_EQ(values(cat({a, b}, 0)), (std::vector<double>{1, 2, 3, 4, 5, 6}));
  const Tensor c = from_vector<double>({7, 8}, {2, 1});
  EXPECT_EQ(values(cat({a, c}, -1)), (std::vector<double>{1, 2, 7, 3, 4, 8}));
  EXPECT_EQ(cat({a, a.narrow(0, 0, 0), b}, 0).shape(), (Shape{3, 2}));  // empty blocks join too
  EXPECT_EQ(values(cat({a.t(), a.t()}, 1)), (std::vector<double>{1, 3, 1, 3, 2, 4, 2, 4}));
}

TEST(Concat, GradientIsEachInputsBlock) {
  EXPECT_TRUE(gradcheck(
      [](const std::vector<Tensor>& in) {
        return cat({in[0], in[1], in[2]}, 1);
      },
      {random_leaf({2, 3, 4}, 1), random_leaf({2, 1, 4}, 2), random_leaf({2, 2, 4}, 3)}));
  EXPECT_TRUE(gradcheck(
      [](const std::vector<Tensor>& in) {
        return cat({in[0], in[0]}, 0) * 2.0;
      },
      {random_leaf({3, 2}, 4)}));
}

TEST(Concat, RefusesWhatDoesNotJoin) {
  const Tensor a = zeros({2, 3});
  EXPECT_THROW(cat({}, 0), Error);
  EXPECT_THROW(cat({a, zeros({3, 2})}, 0), Error);
  EXPECT_THROW(cat({a, zeros({2, 3}, TensorOptions(DType::f64))}, 0), Error);
  EXPECT_THROW(cat({a, zeros({2, 3, 1})}, 0), Error);
  EXPECT_THROW(cat({a}, 2), Error);
}
