// Modules of several inputs (nn::MultiInputModule, Module::forward(inputs), module(x, skip)):
// forward against a naive reference, finite-difference gradients, a few training steps, and the
// errors for a wrong input count.
#include <cmath>

#include "testing.h"

using namespace exadnn;
using exadnn::testing::values;

namespace {

// A U-Net style merge: concatenate (x, skip) along features, then a linear layer.
// x: [N, in_x], skip: [N, in_skip] -> [N, out]; written as two linear maps of the two halves of
// the weight, so it needs no concatenation op.
class ConcatLinear : public nn::MultiInputModule {
 public:
  ConcatLinear(int64_t in_x, int64_t in_skip, int64_t out)
      : MultiInputModule({"x", "skip"}),
        from_x_(register_module("from_x", std::make_shared<nn::Linear>(in_x, out))),
        from_skip_(register_module("from_skip", std::make_shared<nn::Linear>(
                                                    nn::LinearOptions(in_skip, out).bias(false)))) {
  }
  std::string name() const override { return "ConcatLinear"; }

  std::shared_ptr<nn::Linear> from_x_, from_skip_;

 protected:
  Tensor forward_inputs(const std::vector<Tensor>& in) override {
    return (*from_x_)(in[0]) + (*from_skip_)(in[1]);
  }
};

// y[n][o] = b[o] + sum_i x[n][i] Wx[o][i] + sum_j skip[n][j] Ws[o][j], by loops.
std::vector<double> reference(const ConcatLinear& m, const Tensor& x, const Tensor& skip) {
  const std::vector<double> xv = values(x), sv = values(skip), wx = values(m.from_x_->weight),
                            ws = values(m.from_skip_->weight), b = values(m.from_x_->bias);
  const int64_t n = x.size(0), ix = x.size(1), is = skip.size(1), out = m.from_x_->weight.size(0);
  std::vector<double> y(static_cast<size_t>(n * out));
  for (int64_t r = 0; r < n; ++r)
    for (int64_t o = 0; o < out; ++o) {
      double acc = b[o];
      for (int64_t i = 0; i < ix; ++i) acc += xv[r * ix + i] * wx[o * ix + i];
      for (int64_t j = 0; j < is; ++j) acc += sv[r * is + j] * ws[o * is + j];
      y[r * out + o] = acc;
    }
  return y;
}

// Declares two inputs but forgets forward_inputs (a plain Module subclass).
class Forgetful : public nn::Module {
 public:
  Tensor forward(const Tensor& x) override { return x; }
  std::vector<std::string> input_names() const override { return {"a", "b"}; }
  std::string name() const override { return "Forgetful"; }
};

}  // namespace

TEST(MultiInput, ForwardMatchesConcatThenLinearEveryWayItIsCalled) {
  manual_seed(3);
  ConcatLinear m(3, 2, 4);
  const Tensor x = randn({5, 3}), skip = randn({5, 2});
  const Tensor y = m(x, skip);
  EXPECT_EQ(y.shape(), (Shape{5, 4}));
  EXPECT_TRUE(exadnn::testing::all_close(y, reference(m, x, skip),
                                         exadnn::testing::tolerance_for(DType::f32)));
  nn::Module& base = m;
  EXPECT_EQ(values(base.forward({x, skip})), values(y));
  EXPECT_EQ(values(base(std::vector<Tensor>{x, skip})), values(y));
  EXPECT_EQ(m.input_names(), (std::vector<std::string>{"x", "skip"}));
}

TEST(MultiInput, GradientsOfInputsAndParametersMatchFiniteDifferences) {
  manual_seed(4);
  ConcatLinear m(3, 2, 4);
  m.to(DType::f64);
  std::vector<Tensor> inputs = {exadnn::testing::random_leaf({5, 3}, 1),
                                exadnn::testing::strided_leaf({5, 2}, 2)};
  for (const Tensor& p : m.parameters()) inputs.push_back(p);  // perturbed in place by gradcheck
  EXPECT_TRUE(exadnn::testing::gradcheck(
      [&](const std::vector<Tensor>& in) { return tanh(m(in[0], in[1])); }, inputs));
}

TEST(MultiInput, SequentialStartingWithATwoInputModuleTrains) {
  manual_seed(5);
  // (x, skip) -> ConcatLinear -> ReLU -> Linear: a decoder stage of a U-Net.
  auto merge = std::make_shared<ConcatLinear>(3, 2, 8);
  nn::Sequential net{merge, std::make_shared<nn::ReLU>(), std::make_shared<nn::Linear>(8, 1)};
  EXPECT_EQ(net.input_names(), (std::vector<std::string>{"x", "skip"}));

  const Tensor x = randn({16, 3}), skip = randn({16, 2});
  const Tensor target = sum(x, {1}, true) - sum(skip, {1}, true);  // [16, 1]
  optim::SGD opt(net.parameters(), optim::SGDOptions(0.05));
  double first = 0, last = 0;
  for (int step = 0; step < 20; ++step) {
    opt.zero_grad();
    const Tensor loss = nn::mse_loss(net(x, skip), target);
    loss.backward();
    for (const auto& [name, p] : net.named_parameters())
      ASSERT_TRUE(p.grad().defined()) << name << " got no gradient";
    opt.step();
    (step == 0 ? first : last) = loss.item<double>();
  }
  EXPECT_LT(last, 0.7 * first);
}

TEST(MultiInput, AWrongInputCountIsAnErrorNamingTheModule) {
  ConcatLinear m(3, 2, 4);
  const Tensor x = randn({5, 3}), skip = randn({5, 2});
  EXPECT_EXADNN_ERROR(m(x), "ConcatLinear", "takes 2 inputs (x, skip), got 1");
  EXPECT_EXADNN_ERROR(m(x, skip, skip), "ConcatLinear", "takes 2 inputs (x, skip), got 3");
  EXPECT_EXADNN_ERROR(m(x, Tensor()), "ConcatLinear", "input 'skip' is undefined");
  nn::Linear linear(3, 4);
  EXPECT_EXADNN_ERROR(linear(x, x), "Linear", "takes 1 input (x), got 2");
  EXPECT_EXADNN_ERROR(linear(std::vector<Tensor>{}), "Linear", "takes 1 input (x), got 0");
  // in the middle of a Sequential it receives one tensor
  nn::Sequential late{std::make_shared<nn::Linear>(3, 3), std::make_shared<ConcatLinear>(3, 2, 4)};
  EXPECT_EXADNN_ERROR(late(x), "ConcatLinear", "takes 2 inputs (x, skip), got 1");
  EXPECT_EXADNN_ERROR(late(x, skip), "Sequential", "takes 1 input (x), got 2");
  Forgetful forgetful;
  EXPECT_EXADNN_ERROR(forgetful(x, x), "Forgetful", "does not override forward_inputs");
}

TEST(MultiInput, NeedsAtLeastTwoInputNames) {
  struct One : nn::MultiInputModule {
    One() : MultiInputModule({"x"}) {}
    std::string name() const override { return "One"; }
    Tensor forward_inputs(const std::vector<Tensor>& in) override { return in[0]; }
  };
  EXPECT_EXADNN_ERROR(One(), "MultiInputModule", "at least two input names");
}

TEST(MultiInput, SingleInputModulesTakeAListOfOne) {
  manual_seed(6);
  nn::Sequential net{std::make_shared<nn::Linear>(3, 2), std::make_shared<nn::Tanh>()};
  const Tensor x = randn({4, 3});
  EXPECT_EQ(net.input_names(), (std::vector<std::string>{"x"}));
  EXPECT_EQ(values(net.forward(std::vector<Tensor>{x})), values(net(x)));
  nn::Module& first = *net[0];
  EXPECT_EQ(values(first.forward({x})), values(first(x)));
  nn::Sequential empty;
  EXPECT_EQ(values(empty(std::vector<Tensor>{x})), values(x));
}
