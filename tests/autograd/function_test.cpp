// User-defined graph nodes through autograd::Function.
#include <cmath>

#include "testing.h"

using namespace exadnn;
using exadnn::testing::all_close;

namespace {

// y = x^3 with a hand-written gradient 3x^2.
struct Cube : autograd::Function {
  std::vector<Tensor> forward(autograd::FunctionContext& ctx,
                              const std::vector<Tensor>& in) override {
    ctx.save_for_backward({in[0]});
    return {in[0] * in[0] * in[0]};
  }
  std::vector<Tensor> backward(autograd::FunctionContext& ctx,
                               const std::vector<Tensor>& g) override {
    const Tensor& x = ctx.saved()[0];
    return {g[0] * x * x * 3.0};
  }
  std::string name() const override { return "Cube"; }
};

// Two outputs: (a + b, a * b), with a scale set at construction.
struct SumAndProduct : autograd::Function {
  explicit SumAndProduct(double scale) : scale(scale) {}
  double scale;
  std::vector<Tensor> forward(autograd::FunctionContext& ctx,
                              const std::vector<Tensor>& in) override {
    ctx.save_for_backward({in[0], in[1]});
    return {(in[0] + in[1]) * scale, in[0] * in[1]};
  }
  std::vector<Tensor> backward(autograd::FunctionContext& ctx,
                               const std::vector<Tensor>& g) override {
    const Tensor& a = ctx.saved()[0];
    const Tensor& b = ctx.saved()[1];
    return {g[0] * scale + g[1] * b, ctx.needs_input_grad(1) ? g[0] * scale + g[1] * a : Tensor()};
  }
};

// A broken function that returns the wrong number of gradients.
struct WrongCount : autograd::Function {
  std::vector<Tensor> forward(autograd::FunctionContext&, const std::vector<Tensor>& in) override {
    return {in[0] * 2.0};
  }
  std::vector<Tensor> backward(autograd::FunctionContext&, const std::vector<Tensor>& g) override {
    return {g[0], g[0]};
  }
  std::string name() const override { return "WrongCount"; }
};

// A broken function whose gradient has the wrong shape.
struct WrongShape : autograd::Function {
  std::vector<Tensor> forward(autograd::FunctionContext&, const std::vector<Tensor>& in) override {
    return {sum(in[0])};
  }
  std::vector<Tensor> backward(autograd::FunctionContext&, const std::vector<Tensor>& g) override {
    return {g[0]};
  }
  std::string name() const override { return "WrongShape"; }
};

// Doubles its input and returns the gradient in f32 whatever the input's dtype, as a custom
// node computing in f32 under bf16 autocast does (dist::SpatialBatchNorm2d did).
struct GradientInF32 : autograd::Function {
  std::vector<Tensor> forward(autograd::FunctionContext&, const std::vector<Tensor>& in) override {
    return {in[0] * 2.0};
  }
  std::vector<Tensor> backward(autograd::FunctionContext&, const std::vector<Tensor>& g) override {
    return {g[0].to(DType::f32) * 2.0};
  }
  std::string name() const override { return "GradientInF32"; }
};

}  // namespace

TEST(Function, CubeMatchesItsGradient) {
  Tensor x = exadnn::testing::random_leaf({3, 4});
  EXPECT_TRUE(exadnn::testing::gradcheck(
      [](const std::vector<Tensor>& in) { return autograd::apply<Cube>(in)[0]; }, {x}));
}

TEST(Function, RecordsANodeNamedAfterTheFunction) {
  Tensor x = exadnn::testing::random_leaf({2});
  Tensor y = autograd::apply<Cube>({x})[0];
  ASSERT_NE(y.grad_fn(), nullptr);
  EXPECT_EQ(y.grad_fn()->name(), "Cube");
  EXPECT_NE(y.str().find("grad_fn=<Cube>"), std::string::npos);
}

TEST(Function, ForwardRunsWithoutRecording) {
  struct Probe : autograd::Function {
    bool recording = true;
    std::vector<Tensor> forward(autograd::FunctionContext&,
                                const std::vector<Tensor>& in) override {
      recording = GradMode::is_enabled();
      return {in[0] * 1.0};
    }
    std::vector<Tensor> backward(autograd::FunctionContext&,
                                 const std::vector<Tensor>& g) override {
      return g;
    }
  };
  auto probe = std::make_shared<Probe>();
  autograd::apply_function(probe, {exadnn::testing::random_leaf({1})});
  EXPECT_FALSE(probe->recording);
}

TEST(Function, TwoOutputsBothContribute) {
  Tensor a = exadnn::testing::random_leaf({3}, 1), b = exadnn::testing::random_leaf({3}, 2);
  EXPECT_TRUE(exadnn::testing::gradcheck(
      [](const std::vector<Tensor>& in) {
        auto out = autograd::apply<SumAndProduct>(in, 2.5);
        return out[0] * out[1];
      },
      {a, b}));
}

TEST(Function, UnusedOutputGetsZeroGradient) {
  Tensor a = exadnn::testing::random_leaf({3}, 1), b = exadnn::testing::random_leaf({3}, 2);
  auto out = autograd::apply<SumAndProduct>({a, b}, 1.0);
  sum(out[1]).backward();  // out[0] unused: its gradient arrives as zeros
  EXPECT_TRUE(all_close(a.grad(), exadnn::testing::values(b), {1e-12, 0}));
}

TEST(Function, InputWithoutGradGetsNone) {
  Tensor a = exadnn::testing::random_leaf({3}, 1);
  Tensor b = randn({3}, DType::f64);
  auto out = autograd::apply<SumAndProduct>({a, b}, 1.0);
  sum(out[0] + out[1]).backward();
  EXPECT_TRUE(a.grad().defined());
  EXPECT_FALSE(b.grad().defined());
}

TEST(Function, WrongGradientCountIsAnError) {
  Tensor x = exadnn::testing::random_leaf({2});
  Tensor y = autograd::apply<WrongCount>({x})[0];
  EXPECT_EXADNN_ERROR(sum(y).backward(), "WrongCount", "2 gradients", "1 inputs");
}

TEST(Function, WrongGradientShapeIsAnError) {
  Tensor x = exadnn::testing::random_leaf({2, 3});
  Tensor y = autograd::apply<WrongShape>({x})[0];
  EXPECT_EXADNN_ERROR(y.backward(), "WrongShape", "[2, 3]");
}

// The nodes behind a Function read its gradients in their inputs' dtypes: one in another dtype
// is cast (before, the bf16 convolution behind dist::SpatialBatchNorm2d read its f32 gradient's
// bytes as bf16: NaN weight gradients). Against the same graph with x * 2 in place of the Function.
TEST(Function, GradientInAnotherDtypeIsCastToTheInputs) {
  const Tensor image = exadnn::testing::random_leaf({1, 2, 5, 5}, 3).detach().to(DType::bf16);
  auto weight_gradient = [&](bool through_function) {
    Tensor w = exadnn::testing::random_leaf({3, 2, 3, 3}, 4).detach().to(DType::f32);
    w.requires_grad_(true);
    const Tensor x = conv2d(image, w.to(DType::bf16), Tensor(), Conv2dParams{});  // bf16
    const Tensor y = through_function ? autograd::apply<GradientInF32>({x})[0] : x * 2.0;
    sum(y.to(DType::f32)).backward();
    return w.grad();
  };
  const Tensor got = weight_gradient(true), want = weight_gradient(false);
  ASSERT_EQ(got.dtype(), DType::f32);
  EXPECT_TRUE(exadnn::testing::all_close(got, exadnn::testing::values(want),
                                         exadnn::testing::tolerance_for(DType::f32)));
}

TEST(Function, SavedTensorsAreFreedAfterBackward) {
  Tensor x = exadnn::testing::random_leaf({2});
  Tensor y = sum(autograd::apply<Cube>({x})[0]);
  y.backward();
  EXPECT_EXADNN_ERROR(y.backward(), "retain_graph");
}

TEST(Function, NoInputRequiresGradMeansNoNode) {
  Tensor x = randn({2}, DType::f64);
  Tensor y = autograd::apply<Cube>({x})[0];
  EXPECT_EQ(y.grad_fn(), nullptr);
  EXPECT_FALSE(y.requires_grad());
}
