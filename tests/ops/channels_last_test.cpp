// Channels-last tensors through the ops that keep them (core/memory_format.h): the unary
// elementwise ops return the input's format, and relu's gradient keeps it when the incoming
// gradient has it too; values and gradients equal to the contiguous run's.
#include <gtest/gtest.h>

#include "testing.h"

using namespace exadnn;
using exadnn::testing::all_close;
using exadnn::testing::values;

namespace {
// t's values in channels-last memory (a leaf of its own).
Tensor to_channels_last(const Tensor& t) {
  return t.detach().permute({0, 2, 3, 1}).contiguous().permute({0, 3, 1, 2});
}
}  // namespace

TEST(ChannelsLast, UnaryOpsKeepTheFormat) {
  const Tensor x = exadnn::testing::random_leaf({2, 5, 3, 4}, 3).detach();
  const Tensor xc = to_channels_last(x);
  ASSERT_TRUE(is_channels_last(xc));
  ASSERT_FALSE(xc.is_contiguous());
  for (const auto& [name, f] : std::vector<std::pair<std::string, Tensor (*)(const Tensor&)>>{
           {"relu", relu}, {"exp", exp}, {"tanh", tanh}, {"neg", neg}, {"abs", abs}}) {
    const Tensor y = f(xc);
    EXPECT_TRUE(is_channels_last(y)) << name;
    EXPECT_FALSE(y.is_contiguous()) << name;
    EXPECT_EQ(values(y), values(f(x))) << name;
  }
  EXPECT_TRUE(relu(x).is_contiguous());  // contiguous stays contiguous
}

TEST(ChannelsLast, ReluGradientInEitherFormat) {
  const Tensor x0 = exadnn::testing::random_leaf({3, 4, 5, 2}, 5).detach();
  const Tensor r = exadnn::testing::random_leaf({3, 4, 5, 2}, 6).detach();
  const Tensor plain = x0.detach().requires_grad_();
  sum(mul(relu(plain), r)).backward();
  for (bool dy_channels_last : {true, false}) {
    const Tensor xc = to_channels_last(x0).requires_grad_();
    const Tensor y = relu(xc);
    ASSERT_TRUE(is_channels_last(y));
    // The incoming gradient: channels-last like y, or contiguous.
    y.backward(dy_channels_last ? to_channels_last(r) : r.contiguous());
    EXPECT_TRUE(all_close(xc.grad(), plain.grad())) << dy_channels_last;
    EXPECT_EQ(values(xc.grad()), values(plain.grad())) << dy_channels_last;
  }
}
