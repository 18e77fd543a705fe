// Layers: Linear, activations, Sequential, Residual, Flatten, Dropout, LayerNorm, initialisers.
#include <cmath>

#include "testing.h"

using namespace exadnn;
using exadnn::testing::all_close;
using exadnn::testing::gradcheck;
using exadnn::testing::values;

TEST(Linear, MatchesNaiveLoopAndBroadcastsBias) {
  nn::Linear layer(3, 2);
  layer.to(DType::f64);
  const Tensor x = randn({4, 3}, DType::f64);
  const std::vector<double> w = values(layer.weight), b = values(layer.bias), xv = values(x);
  std::vector<double> expected;
  for (int n = 0; n < 4; ++n)
    for (int o = 0; o < 2; ++o) {
      double acc = b[o];
      for (int i = 0; i < 3; ++i) acc += xv[n * 3 + i] * w[o * 3 + i];
      expected.push_back(acc);
    }
  EXPECT_TRUE(all_close(layer.forward(x), expected, exadnn::testing::tolerance_for(DType::f64)));
  // leading batch dims
  EXPECT_EQ(layer.forward(randn({2, 5, 3}, DType::f64)).shape(), (Shape{2, 5, 2}));
}

TEST(Linear, InitialisationBoundsFollowFanIn) {
  manual_seed(3);
  nn::Linear layer(400, 50);
  const double bound = 1.0 / std::sqrt(400.0);
  for (const Tensor& p : {layer.weight, layer.bias}) {
    const std::vector<double> v = values(p);
    double lo = 1, hi = -1;
    for (double e : v) lo = std::min(lo, e), hi = std::max(hi, e);
    EXPECT_GE(lo, -bound);
    EXPECT_LE(hi, bound);
    EXPECT_LT(lo, -0.8 * bound);  // actually spread over the interval
    EXPECT_GT(hi, 0.8 * bound);
  }
}

TEST(Linear, GradientsMatchFiniteDifferences) {
  nn::Linear layer(3, 2);
  layer.to(DType::f64);
  const Tensor x = exadnn::testing::random_leaf({4, 3});
  EXPECT_TRUE(gradcheck([&](const std::vector<Tensor>& in) { return layer.forward(in[0]); }, {x}));
  EXPECT_TRUE(gradcheck([&](const std::vector<Tensor>&) { return layer.forward(x.detach()); },
                        {layer.weight, layer.bias}));
  // leading batch dims and a strided input
  const Tensor x3 = exadnn::testing::strided_leaf({3, 2, 3});
  EXPECT_TRUE(gradcheck([&](const std::vector<Tensor>& in) { return layer.forward(in[0]); }, {x3}));
  // the weight gradient arrives laid out like the weight (no strided copy)
  layer.zero_grad();
  sum(layer.forward(x)).backward();
  EXPECT_TRUE(layer.weight.grad().is_contiguous());
  EXPECT_EQ(layer.weight.grad().shape(), layer.weight.shape());
}

TEST(Linear, WrongInputWidthIsNamed) {
  nn::Linear layer(3, 2);
  EXPECT_EXADNN_ERROR(layer.forward(zeros({4, 5})), "Linear", "[4, 5]", "in_features=3");
}

TEST(Activations, MatchTheirFormulas) {
  const Tensor x = from_vector<double>({-2.0, -0.5, 0.5, 3.0});
  const std::vector<double> xv = values(x);
  std::vector<double> relu_ref, leaky_ref, gelu_ref, sig_ref, tanh_ref;
  for (double v : xv) {
    relu_ref.push_back(std::max(v, 0.0));
    leaky_ref.push_back(v > 0 ? v : 0.1 * v);
    gelu_ref.push_back(0.5 * v * (1 + std::tanh(std::sqrt(2 / M_PI) * (v + 0.044715 * v * v * v))));
    sig_ref.push_back(1 / (1 + std::exp(-v)));
    tanh_ref.push_back(std::tanh(v));
  }
  const auto tol = exadnn::testing::tolerance_for(DType::f64);
  EXPECT_TRUE(all_close(nn::ReLU().forward(x), relu_ref, tol));
  EXPECT_TRUE(all_close(nn::LeakyReLU(0.1).forward(x), leaky_ref, tol));
  EXPECT_TRUE(all_close(nn::GELU().forward(x), gelu_ref, tol));
  EXPECT_TRUE(all_close(nn::Sigmoid().forward(x), sig_ref, tol));
  EXPECT_TRUE(all_close(nn::Tanh().forward(x), tanh_ref, tol));
  const Tensor s = nn::Softmax().forward(x.reshape({2, 2}));
  const double e0 = std::exp(-2.0), e1 = std::exp(-0.5), e2 = std::exp(0.5), e3 = std::exp(3.0);
  EXPECT_TRUE(all_close(s, {e0 / (e0 + e1), e1 / (e0 + e1), e2 / (e2 + e3), e3 / (e2 + e3)}, tol));
}

TEST(Activations, GradientsMatchFiniteDifferences) {
  const Tensor x = exadnn::testing::random_leaf({3, 4});
  for (std::shared_ptr<nn::Module> m : std::vector<std::shared_ptr<nn::Module>>{
           std::make_shared<nn::LeakyReLU>(0.2), std::make_shared<nn::GELU>(),
           std::make_shared<nn::Softmax>(1)})
    EXPECT_TRUE(gradcheck([&](const std::vector<Tensor>& in) { return m->forward(in[0]); }, {x}))
        << m->name();
}

TEST(Containers, ResidualAddsItsInput) {
  auto body = std::make_shared<nn::Sequential>(
      std::initializer_list<std::shared_ptr<nn::Module>>{std::make_shared<nn::Linear>(3, 3)});
  nn::Residual block(body);
  const Tensor x = randn({2, 3});
  EXPECT_TRUE(all_close(block.forward(x), body->forward(x) + x));
  EXPECT_EQ(block.named_parameters()[0].first, "body.0.weight");
  auto widen = std::make_shared<nn::Sequential>(
      std::initializer_list<std::shared_ptr<nn::Module>>{std::make_shared<nn::Linear>(3, 4)});
  EXPECT_EXADNN_ERROR(nn::Residual(widen).forward(x), "Residual", "[2, 3]", "[2, 4]");
}

TEST(Containers, FlattenKeepsTheBatch) {
  EXPECT_EQ(nn::Flatten().forward(zeros({2, 3, 4, 5})).shape(), (Shape{2, 60}));
}

TEST(Dropout, ScalesKeptUnitsAndIsIdentityInEval) {
  manual_seed(4);
  nn::Dropout drop(0.25);
  const Tensor x = ones({100000});
  const std::vector<double> y = values(drop.forward(x));
  int64_t zeros_seen = 0;
  for (double v : y) {
    if (v == 0.0)
      ++zeros_seen;
    else
      EXPECT_NEAR(v, 1.0 / 0.75, 1e-6);
  }
  EXPECT_NEAR(static_cast<double>(zeros_seen) / 100000.0, 0.25, 0.01);
  drop.eval();
  EXPECT_TRUE(drop.forward(x).shares_storage_with(x));
  EXPECT_EXADNN_ERROR(nn::Dropout(1.0), "Dropout", "[0, 1)");
}

TEST(LayerNorm, NormalisesTheLastDims) {
  nn::LayerNorm norm({4});
  norm.to(DType::f64);
  const Tensor x = from_vector<double>({1, 2, 3, 4, 10, 10, 10, 14}, {2, 4});
  const Tensor y = norm.forward(x);
  const double sd1 = std::sqrt(1.25 + 1e-5), sd2 = std::sqrt(3.0 + 1e-5);
  EXPECT_TRUE(all_close(
      y, {-1.5 / sd1, -0.5 / sd1, 0.5 / sd1, 1.5 / sd1, -1 / sd2, -1 / sd2, -1 / sd2, 3 / sd2},
      exadnn::testing::tolerance_for(DType::f64)));
  const Tensor xl = exadnn::testing::random_leaf({3, 4});
  EXPECT_TRUE(gradcheck([&](const std::vector<Tensor>& in) { return norm.forward(in[0]); }, {xl}));
  EXPECT_EXADNN_ERROR(norm.forward(zeros({2, 5}, DType::f64)), "LayerNorm", "[2, 5]", "[4]");
}

// uniform_ and normal_ on a large tensor draw in pieces: the values are still those of one draw
// over the whole tensor (bit for bit, an odd element count included), and the f64 temporaries
// stay small: a 2048 x 2048 weight used to leave ~100 MB of them in the caching allocator.
TEST(Init, LargeTensorsDrawOneStreamWithSmallTemporaries) {
  for (const int64_t cols : {50000, 50001}) {
    const Shape shape{3, cols};
    Generator g1(9), g2(9);
    Tensor u = empty(shape), nrm = empty(shape);
    nn::init::uniform_(u, -0.5, 2.0, &g1);
    nn::init::normal_(nrm, 1.0, 3.0, &g1);
    const Tensor u_ref = (rand(shape, TensorOptions(DType::f64), &g2) * 2.5 + -0.5).to(DType::f32);
    const Tensor n_ref = (randn(shape, TensorOptions(DType::f64), &g2) * 3.0 + 1.0).to(DType::f32);
    EXPECT_EQ(values(u), values(u_ref)) << cols;
    EXPECT_EQ(values(nrm), values(n_ref)) << cols;
  }
  MemoryManager& mm = MemoryManager::instance();
  Tensor w = empty({2048, 2048});  // 16.8 MB of f32
  mm.reset_peak(MemoryKind::host);
  const size_t before = mm.stats(MemoryKind::host).bytes_in_use;
  nn::init::uniform_(w, -1, 1);
  nn::init::normal_(w, 0, 1);
  EXPECT_LT(mm.stats(MemoryKind::host).peak_bytes - before, size_t{4} << 20);
}

TEST(Init, XavierAndKaimingHaveTheRightSpread) {
  manual_seed(5);
  Tensor w = empty({300, 200});
  nn::init::xavier_normal_(w);
  const std::vector<double> v = values(w);
  double sq = 0;
  for (double e : v) sq += e * e;
  EXPECT_NEAR(std::sqrt(sq / v.size()), std::sqrt(2.0 / 500.0), 0.002);
  nn::init::kaiming_normal_(w, 0.0, "relu");
  sq = 0;
  for (double e : values(w)) sq += e * e;
  EXPECT_NEAR(std::sqrt(sq / v.size()), std::sqrt(2.0 / 200.0), 0.002);
  EXPECT_EXADNN_ERROR(nn::init::gain("swish"), "gain", "swish");
  EXPECT_EXADNN_ERROR(nn::init::xavier_uniform_(empty({5})), "init", "[5]");
}
