// Bad input: each raises exadnn::Error naming the op and the shapes/dtypes involved.
#include <gtest/gtest.h>

#include "op_test_util.h"

using namespace exadnn;
using exadnn::optest::make;

namespace {

Tensor f32(const Shape& s) {
  return zeros(s, DType::f32);
}

TEST(OpErrors, AddShapesDoNotBroadcast) {
  EXPECT_EXADNN_ERROR(add(f32({2, 3}), f32({4})), "add", "[2, 3]", "[4]", "broadcast");
  EXPECT_EXADNN_ERROR(f32({2, 3}) * f32({3, 2}), "mul", "[2, 3]", "[3, 2]", "broadcast");
  EXPECT_EXADNN_ERROR(maximum(f32({5}), f32({2, 4})), "maximum", "[5]", "[2, 4]", "broadcast");
  EXPECT_EXADNN_ERROR(lt(f32({3}), f32({2})), "lt", "[3]", "[2]", "broadcast");
}

TEST(OpErrors, MatmulShapeMismatch) {
  EXPECT_EXADNN_ERROR(matmul(f32({2, 3}), f32({4, 5})), "matmul", "[2, 3]", "[4, 5]");
  EXPECT_EXADNN_ERROR(matmul(f32({2, 2, 3}), f32({3, 4, 5})), "matmul", "[2, 2, 3]", "[3, 4, 5]");
  EXPECT_EXADNN_ERROR(matmul(f32({}), f32({3})), "matmul", "[]", "[3]");
}

// Regression: incompatible batch dims report only the batch shapes ("shapes [2] and [3] cannot be
// broadcast together"), not the operands: src/ops/linalg.cpp:107 passes a_batch/b_batch to
// broadcast_shapes, whose message then never names [2, 2, 3] and [3, 3, 4].
TEST(OpErrors, MatmulBatchMismatchNamesOperandShapes) {
  EXPECT_EXADNN_ERROR(matmul(f32({2, 2, 3}), f32({3, 3, 4})), "matmul", "[2, 2, 3]", "[3, 3, 4]");
}

// Regression: a mismatch involving 1-D operands reports the internally unsqueezed shapes ("shapes
// [1, 3] and [4, 1] are not aligned"), not the caller's [3] and [4]: src/ops/linalg.cpp:101 checks
// after matmul() has promoted the vectors to matrices (linalg.cpp:141).
TEST(OpErrors, MatmulVectorMismatchNamesOperandShapes) {
  EXPECT_EXADNN_ERROR(matmul(f32({3}), f32({4})), "matmul", "[3]", "[4]");
  EXPECT_EXADNN_ERROR(matmul(f32({3}), f32({4, 2})), "matmul", "[3]", "[4, 2]");
}

TEST(OpErrors, MatmulDtypeMismatch) {
  EXPECT_EXADNN_ERROR(matmul(f32({2, 3}), zeros({3, 2}, DType::f64)), "matmul", "f32", "f64");
}

TEST(OpErrors, ReductionAxisOutOfRange) {
  EXPECT_EXADNN_ERROR(sum(f32({2, 3}), {5}), "sum", "axis 5", "out of range");
  EXPECT_EXADNN_ERROR(mean(f32({2, 3}), {-3}), "mean", "axis -3", "out of range");
  EXPECT_EXADNN_ERROR(max(f32({2, 3}), {2}), "max", "axis 2", "out of range");
  EXPECT_EXADNN_ERROR(argmax(f32({2, 3}), 2), "argmax", "axis 2", "out of range");
}

// Regression: logsumexp's axis errors are raised by the max() it calls first, so they name "max",
// not "logsumexp" (src/ops/reduction.cpp:134 runs max(x.detach(), axes) before validating the
// axes).
TEST(OpErrors, LogsumexpAxisErrorsNameLogsumexp) {
  EXPECT_EXADNN_ERROR(logsumexp(f32({2, 3}), {7}), "logsumexp", "axis 7", "out of range");
  EXPECT_EXADNN_ERROR(logsumexp(f32({2, 3}), {1, -1}), "logsumexp", "twice");
}

TEST(OpErrors, DuplicateAxes) {
  EXPECT_EXADNN_ERROR(sum(f32({2, 3}), {1, 1}), "sum", "axis 1", "twice");
  EXPECT_EXADNN_ERROR(sum(f32({2, 3}), {0, -2}), "sum", "twice");
  EXPECT_EXADNN_ERROR(min(f32({2, 3, 4}), {2, -1}), "min", "twice");
  EXPECT_EXADNN_ERROR(f32({2, 3}).permute({1, 1}), "permute", "twice");
}

TEST(OpErrors, NarrowOutOfRange) {
  EXPECT_EXADNN_ERROR(f32({2, 3}).narrow(1, 2, 2), "narrow", "[2, 4)", "size 3", "[2, 3]");
  EXPECT_EXADNN_ERROR(f32({2, 3}).narrow(0, -1, 1), "narrow", "[2, 3]");
  EXPECT_EXADNN_ERROR(f32({2, 3}).narrow(2, 0, 1), "narrow", "axis 2", "out of range");
}

TEST(OpErrors, SelectOutOfRange) {
  EXPECT_EXADNN_ERROR(f32({2, 3}).select(1, 3), "select", "index 3", "size 3", "[2, 3]");
  EXPECT_EXADNN_ERROR(f32({2, 3}).select(0, -3), "select", "index -3", "[2, 3]");
  EXPECT_EXADNN_ERROR(f32({2, 3})[2], "select", "index 2", "[2, 3]");
}

TEST(OpErrors, ReshapeWrongElementCount) {
  EXPECT_EXADNN_ERROR(f32({2, 3}).reshape({4, 2}), "reshape", "[2, 3]", "[4, 2]", "6", "8");
  EXPECT_EXADNN_ERROR(f32({2, 3}).reshape({4, -1}), "reshape", "[2, 3]", "[4, -1]");
  EXPECT_EXADNN_ERROR(f32({2, 3}).reshape({-1, -1}), "reshape", "-1");
  EXPECT_EXADNN_ERROR(f32({2, 3}).view({5}), "view", "[2, 3]", "[5]");
}

TEST(OpErrors, ViewOfNonViewableLayout) {
  EXPECT_EXADNN_ERROR(f32({2, 3}).t().view({6}), "view", "[3, 2]", "[6]", "reshape");
}

TEST(OpErrors, ExpandIncompatible) {
  EXPECT_EXADNN_ERROR(f32({2, 3}).expand({4, 3}), "expand", "[2, 3]", "[4, 3]");
  EXPECT_EXADNN_ERROR(f32({2, 3}).expand({3}), "expand", "[2, 3]", "[3]");
  EXPECT_EXADNN_ERROR(f32({3}).expand({-1, 3}), "expand", "-1");
}

TEST(OpErrors, WhereWithNonBoolCondition) {
  EXPECT_EXADNN_ERROR(where(f32({3}), f32({3}), f32({3})), "where", "bool", "f32");
  EXPECT_EXADNN_ERROR(where(zeros({3}, DType::u8), f32({3}), f32({3})), "where", "bool", "u8");
  EXPECT_EXADNN_ERROR(where(zeros({3}, DType::boolean), f32({3}), f32({2})), "where", "[3]", "[2]",
                      "broadcast");
}

TEST(OpErrors, MaxOfEmptyTensor) {
  EXPECT_EXADNN_ERROR(max(f32({0})), "max", "empty", "[0]");
  EXPECT_EXADNN_ERROR(min(f32({2, 0}), {1}), "min", "empty", "[2, 0]");
}

TEST(OpErrors, ArgmaxOverSizeZeroAxis) {
  EXPECT_EXADNN_ERROR(argmax(f32({3, 0}), 1), "argmax", "size 0", "[3, 0]");
  EXPECT_EXADNN_ERROR(argmin(f32({0, 2}), 0), "argmin", "size 0", "[0, 2]");
  EXPECT_EXADNN_ERROR(argmax(f32({0})), "argmax", "size 0");
}

TEST(OpErrors, ClampLowAboveHigh) {
  EXPECT_EXADNN_ERROR(clamp(f32({3}), 2.5, 1.25), "clamp", "2.5", "1.25");
}

TEST(OpErrors, SliceStepMustBePositive) {
  EXPECT_EXADNN_ERROR(f32({4}).slice(0, 0, 4, 0), "slice", "step");
  EXPECT_EXADNN_ERROR(f32({4}).slice(0, 0, 4, -1), "slice", "step");
}

TEST(OpErrors, BackwardOnNonScalarWithoutGradient) {
  const Tensor x = exadnn::testing::random_leaf({2, 3});
  const Tensor y = x * 2.0;
  EXPECT_EXADNN_ERROR(y.backward(), "backward", "[2, 3]");
  // with an explicit gradient of the wrong shape
  EXPECT_EXADNN_ERROR(y.backward(zeros({3}, DType::f64)), "backward", "[3]", "[2, 3]");
  // and it works with the right one
  y.backward(ones({2, 3}, DType::f64));
  EXPECT_TRUE(exadnn::testing::all_close(x.grad(), std::vector<double>(6, 2.0),
                                         exadnn::testing::tolerance_for(DType::f64)));
}

TEST(OpErrors, BackwardTwiceWithoutRetainGraph) {
  const Tensor x = exadnn::testing::random_leaf({3});
  const Tensor y = sum(exp(x) * x);
  y.backward();
  EXPECT_EXADNN_ERROR(y.backward(), "retain_graph");
}

TEST(OpErrors, BackwardTwiceWithRetainGraphAccumulates) {
  const Tensor x = optest::leaf({1.0, 2.0}, {2});
  const Tensor y = sum(x * x);
  y.backward(Tensor(), /*retain_graph=*/true);
  y.backward();
  EXPECT_TRUE(
      exadnn::testing::all_close(x.grad(), {4.0, 8.0}, exadnn::testing::tolerance_for(DType::f64)));
}

TEST(OpErrors, BackwardOfTensorWithoutGrad) {
  EXPECT_EXADNN_ERROR(sum(f32({3})).backward(), "backward", "does not require grad");
}

TEST(OpErrors, ExpOfI32IsComputedInF32) {
  // Not an error: floating-only ops compute integer inputs in f32.
  const Tensor x = from_vector<int32_t>({0, 1, 2});
  Tensor y;
  EXPECT_NO_THROW(y = exp(x));
  EXPECT_EQ(y.dtype(), DType::f32);
  EXPECT_TRUE(optest::matches(y, DType::f32, {{3}, {1.0, std::exp(1.0), std::exp(2.0)}}));
}

TEST(OpErrors, RequiresGradOnIntegerTensor) {
  Tensor x = from_vector<int32_t>({1, 2});
  EXPECT_EXADNN_ERROR(x.requires_grad_(true), "requires_grad_", "i32");
}

TEST(OpErrors, TransposeOfThreeDimsWithT) {
  EXPECT_EXADNN_ERROR(f32({2, 3, 4}).t(), "t", "[2, 3, 4]");
}

}  // namespace
