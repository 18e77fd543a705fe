// softmax and log_softmax: forward against a naive loop over every axis, stability, f64
// finite-difference gradient checks, f32 gradients against composed ops, and errors.
#include <gtest/gtest.h>

#include <limits>

#include "layer_ref.h"

using namespace exadnn;
using exadnn::optest::make;
using exadnn::optest::matches;
using exadnn::optest::Ref;
using exadnn::optest::Values;
using exadnn::testing::all_close;
using exadnn::testing::gradcheck;
using exadnn::testing::random_leaf;
using exadnn::testing::strided_leaf;

namespace {

struct Case {
  Shape shape;
  int64_t axis;
};

const std::vector<Case>& cases() {
  static const std::vector<Case> v{{{5}, 0},       {{4, 10}, 1},    {{4, 10}, -1},
                                   {{4, 10}, 0},   {{2, 3, 4}, 1},  {{2, 3, 4}, -1},
                                   {{2, 3, 4}, 0}, {{128, 10}, -1}, {{300, 200}, 1}};
  return v;
}

Tensor run(const Tensor& x, int64_t axis, bool log) {
  return log ? log_softmax(x, axis) : softmax(x, axis);
}

TEST(SoftmaxForward, MatchesNaiveLoop) {
  for (DType t : {DType::f32, DType::f64})
    for (bool log : {false, true})
      for (const Case& c : cases()) {
        SCOPED_TRACE(::testing::Message() << c.shape << " axis " << c.axis << (log ? " log" : "")
                                          << " " << dtype_name(t));
        const Values x = optest::uniform(c.shape.numel(), 3, -4.0, 4.0);
        const int64_t axis = c.axis < 0 ? c.axis + c.shape.size() : c.axis;
        EXPECT_TRUE(matches(run(make(x, c.shape, t), c.axis, log), t,
                            Ref{c.shape, layerref::softmax(x, c.shape, axis, log)}));
      }
}

TEST(SoftmaxForward, StableForLargeAndInfiniteInputs) {
  const double inf = std::numeric_limits<double>::infinity();
  const Tensor x = make({1000.0, 1001.0, 999.0, -inf}, {4}, DType::f32);
  const Values ref = layerref::softmax({1000.0, 1001.0, 999.0, -inf}, {4}, 0, false);
  EXPECT_TRUE(matches(softmax(x), DType::f32, Ref{{4}, ref}));
  const Values lref = layerref::softmax({1000.0, 1001.0, 999.0, -inf}, {4}, 0, true);
  EXPECT_TRUE(matches(log_softmax(x), DType::f32, Ref{{4}, lref}));
  const Tensor all_neg_inf = make({-inf, -inf}, {2}, DType::f64);
  for (double v : exadnn::testing::values(softmax(all_neg_inf)))
    EXPECT_TRUE(std::isnan(v) || v == 0.0);
}

TEST(SoftmaxForward, IntegerInputComputesInF32AndZeroDim) {
  const Tensor x = make({1, 2, 3}, {3}, DType::i64);
  const Tensor y = softmax(x);
  EXPECT_EQ(y.dtype(), DType::f32);
  EXPECT_TRUE(matches(y, DType::f32, Ref{{3}, layerref::softmax({1, 2, 3}, {3}, 0, false)}));
  EXPECT_EQ(softmax(scalar_tensor(3.0), 0).item<double>(), 1.0);
  EXPECT_EQ(log_softmax(scalar_tensor(3.0), -1).item<double>(), 0.0);
}

TEST(SoftmaxGradcheck, EveryAxis) {
  for (bool log : {false, true})
    for (const Case& c : cases()) {
      if (c.shape.numel() > 100) continue;
      SCOPED_TRACE(::testing::Message() << c.shape << " axis " << c.axis << (log ? " log" : ""));
      const int64_t axis = c.axis;
      EXPECT_TRUE(
          gradcheck([axis, log](const std::vector<Tensor>& in) { return run(in[0], axis, log); },
                    {random_leaf(c.shape, 5)}));
    }
}

TEST(SoftmaxGradcheck, StridedInputAndComposition) {
  EXPECT_TRUE(gradcheck(
      [](const std::vector<Tensor>& in) { return softmax(in[0], 1) * log_softmax(in[0], 0); },
      {strided_leaf({3, 4, 2}, 6)}));
}

TEST(SoftmaxGradient, F32MatchesComposedOpsInF64) {
  for (bool log : {false, true})
    for (const Case& c : cases()) {
      SCOPED_TRACE(::testing::Message() << c.shape << " axis " << c.axis << (log ? " log" : ""));
      const Values xv = optest::uniform(c.shape.numel(), 7, -3.0, 3.0);
      const Values gv = layerref::quantized(c.shape.numel(), 8);
      Tensor x32 = make(xv, c.shape, DType::f32).requires_grad_();
      run(x32, c.axis, log).backward(make(gv, c.shape, DType::f32));
      Tensor x64 = make(xv, c.shape, DType::f64).requires_grad_();
      const Tensor lse = logsumexp(x64, {c.axis}, true);
      (log ? x64 - lse : exp(x64 - lse)).backward(make(gv, c.shape, DType::f64));
      EXPECT_TRUE(all_close(x32.grad(), x64.grad()));
    }
}

TEST(SoftmaxErrors, AxisOutOfRange) {
  EXPECT_EXADNN_ERROR(softmax(zeros({2, 3}), 2), "softmax", "axis 2", "out of range");
  EXPECT_EXADNN_ERROR(log_softmax(zeros({2, 3}), -3), "log_softmax", "axis -3", "out of range");
  EXPECT_EXADNN_ERROR(softmax(Tensor()), "softmax", "undefined");
  EXPECT_EXADNN_ERROR(softmax(zeros({2}, DType::f16)), "no kernel for op 'softmax_forward'", "f16");
}

}  // namespace
