// Finite-difference gradient checks (f64) of the differentiable views and conversions.
#include <gtest/gtest.h>

#include "op_test_util.h"

using namespace exadnn;
using exadnn::testing::all_close;
using exadnn::testing::gradcheck;
using exadnn::testing::random_leaf;
using exadnn::testing::strided_leaf;
using exadnn::testing::tolerance_for;

namespace {

using ViewFn = std::function<Tensor(const Tensor&)>;

// Checks f on a contiguous leaf and on a strided leaf of `shape`; the output is also multiplied
// by an operand broadcast against it, so the view's gradient meets a broadcast gradient.
void check_view(const Shape& shape, const ViewFn& f) {
  auto g = [&](const std::vector<Tensor>& in) { return f(in[0]); };
  EXPECT_TRUE(gradcheck(g, {random_leaf(shape, 1)})) << "contiguous " << shape;
  EXPECT_TRUE(gradcheck(g, {strided_leaf(shape, 2)})) << "strided " << shape;
  EXPECT_TRUE(gradcheck(
      [&](const std::vector<Tensor>& in) {
        const Tensor y = f(in[0]);
        return y * (y.dim() > 0 ? in[1].expand({y.shape()[y.dim() - 1]}) : in[1]);
      },
      {random_leaf(shape, 3), random_leaf({1}, 4)}))
      << "with a broadcast operand " << shape;
}

TEST(GradView, Reshape) {
  check_view({2, 3, 4}, [](const Tensor& x) { return x.reshape({6, 4}); });
  check_view({2, 3, 4}, [](const Tensor& x) { return x.reshape({4, -1}); });
  check_view({2, 3, 4}, [](const Tensor& x) { return x.reshape({24}); });
  check_view({3, 4}, [](const Tensor& x) { return x.t().reshape({2, 6}); });  // needs a copy
  check_view({3, 4}, [](const Tensor& x) { return x.reshape({3, 4}); });      // same shape
}

TEST(GradView, View) {
  check_view({2, 3, 4}, [](const Tensor& x) { return x.contiguous().view({6, 4}); });
  check_view({2, 3, 4}, [](const Tensor& x) { return x.contiguous().view({2, 12}); });
  // a column slice keeps viewable groups: [4,6] -> narrow -> [4,3] -> [2,2,3]
  check_view({4, 6}, [](const Tensor& x) { return x.narrow(1, 1, 3).view({2, 2, 3}); });
}

TEST(GradView, Permute) {
  check_view({2, 3, 4}, [](const Tensor& x) { return x.permute({2, 0, 1}); });
  check_view({2, 3, 4}, [](const Tensor& x) { return x.permute({-1, 1, 0}); });
}

TEST(GradView, TransposeAndT) {
  check_view({2, 3, 4}, [](const Tensor& x) { return x.transpose(0, 2); });
  check_view({2, 3, 4}, [](const Tensor& x) { return x.transpose(-1, 1); });
  check_view({3, 5}, [](const Tensor& x) { return x.t(); });
  check_view({5}, [](const Tensor& x) { return x.t(); });
}

TEST(GradView, Narrow) {
  check_view({5, 4}, [](const Tensor& x) { return x.narrow(0, 1, 3); });
  check_view({5, 4}, [](const Tensor& x) { return x.narrow(-1, 2, 2); });
}

TEST(GradView, Select) {
  check_view({3, 4, 2}, [](const Tensor& x) { return x.select(1, 2); });
  check_view({3, 4, 2}, [](const Tensor& x) { return x.select(0, -1); });
  check_view({3, 4}, [](const Tensor& x) { return x[1]; });
}

TEST(GradView, SliceWithStep) {
  check_view({7, 3}, [](const Tensor& x) { return x.slice(0, 1, 7, 2); });
  check_view({3, 8}, [](const Tensor& x) { return x.slice(1, 0, 8, 3); });
  check_view({3, 8}, [](const Tensor& x) { return x.slice(1, -5, -1, 2); });
  check_view({9}, [](const Tensor& x) { return x.slice(0, 2, 9, 2).slice(0, 1, 4, 2); });
}

TEST(GradView, SqueezeUnsqueeze) {
  check_view({3, 1, 4, 1}, [](const Tensor& x) { return x.squeeze(); });
  check_view({3, 1, 4}, [](const Tensor& x) { return x.squeeze(1); });
  check_view({3, 4}, [](const Tensor& x) { return x.unsqueeze(0); });
  check_view({3, 4}, [](const Tensor& x) { return x.unsqueeze(1); });
  check_view({3, 4}, [](const Tensor& x) { return x.unsqueeze(-1); });
}

TEST(GradView, Expand) {
  check_view({3, 1}, [](const Tensor& x) { return x.expand({3, 4}); });
  check_view({4}, [](const Tensor& x) { return x.expand({2, 3, 4}); });
  check_view({1, 3, 1}, [](const Tensor& x) { return x.expand({2, -1, 5}); });
}

TEST(GradView, Flatten) {
  check_view({2, 3, 4}, [](const Tensor& x) { return x.flatten(); });
  check_view({2, 3, 4}, [](const Tensor& x) { return x.flatten(1); });
  check_view({2, 3, 4, 2}, [](const Tensor& x) { return x.flatten(1, 2); });
}

TEST(GradView, ContiguousAndClone) {
  check_view({3, 4}, [](const Tensor& x) { return x.contiguous(); });
  check_view({3, 4}, [](const Tensor& x) { return x.t().contiguous(); });
  check_view({3, 4}, [](const Tensor& x) { return x.clone(); });
  check_view({3, 4}, [](const Tensor& x) { return x.slice(1, 0, 4, 2).clone() * 3.0; });
}

TEST(GradView, ToSameDtypeF64) {
  check_view({3, 4}, [](const Tensor& x) { return x.to(DType::f64); });
}

TEST(GradView, ToDtypeGradientKeepsSourceDtype) {
  // f32 -> f64 -> f32 round trips are lossy for finite differences, so only the gradient's dtype
  // and values are checked: d/dx sum(2 * x.to(f64)) = 2, in the leaf's dtype.
  Tensor x = optest::make({1.0, -2.0, 3.5}, {3}, DType::f32);
  x.requires_grad_(true);
  const Tensor y = x.to(DType::f64);
  EXPECT_EQ(y.dtype(), DType::f64);
  sum(y * 2.0).backward();
  ASSERT_TRUE(x.grad().defined());
  EXPECT_EQ(x.grad().dtype(), DType::f32);
  EXPECT_TRUE(all_close(x.grad(), {2.0, 2.0, 2.0}, tolerance_for(DType::f32)));

  Tensor z = optest::make({1.0, 2.0}, {2}, DType::f64);
  z.requires_grad_(true);
  sum(z.to(DType::f16) * 3.0).backward();
  ASSERT_TRUE(z.grad().defined());
  EXPECT_EQ(z.grad().dtype(), DType::f64);
  EXPECT_TRUE(all_close(z.grad(), {3.0, 3.0}, tolerance_for(DType::f64)));
}

TEST(GradView, ChainOfViews) {
  check_view({2, 3, 4}, [](const Tensor& x) {
    return x.permute({1, 0, 2})
        .slice(2, 0, 4, 2)
        .reshape({3, 4})
        .t()
        .unsqueeze(0)
        .expand({2, 4, 3});
  });
}

TEST(GradView, OverlappingSubviewsAccumulate) {
  // Two views of one leaf whose gradients overlap add up.
  const Tensor x = random_leaf({6}, 5);
  EXPECT_TRUE(gradcheck(
      [](const std::vector<Tensor>& in) { return in[0].narrow(0, 0, 4) * in[0].narrow(0, 2, 4); },
      {x}));
  const Tensor y = random_leaf({4}, 6);
  sum(y.narrow(0, 0, 3)).backward(Tensor(), /*retain_graph=*/false);
  sum(y.narrow(0, 1, 3)).backward();
  EXPECT_TRUE(all_close(y.grad(), {1.0, 2.0, 2.0, 1.0}, tolerance_for(DType::f64)));
}

}  // namespace
