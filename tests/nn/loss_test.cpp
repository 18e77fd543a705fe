// Losses: values against formulas, gradients against finite differences, shape errors.
#include <cmath>

#include "testing.h"

using namespace exadnn;
using exadnn::testing::all_close;
using exadnn::testing::gradcheck;

namespace {
const auto kTol = exadnn::testing::tolerance_for(DType::f64);
}

TEST(Loss, CrossEntropyMatchesLogSoftmax) {
  const Tensor logits = from_vector<double>({1.0, 2.0, 0.5, -1.0, 0.0, 3.0}, {2, 3});
  const Tensor target = from_vector<int64_t>({1, 2});
  const double lse0 = std::log(std::exp(1.0) + std::exp(2.0) + std::exp(0.5));
  const double lse1 = std::log(std::exp(-1.0) + std::exp(0.0) + std::exp(3.0));
  const double l0 = lse0 - 2.0, l1 = lse1 - 3.0;
  EXPECT_TRUE(all_close(nn::cross_entropy(logits, target), {(l0 + l1) / 2}, kTol));
  EXPECT_TRUE(
      all_close(nn::cross_entropy(logits, target, 0.0, nn::Reduction::none), {l0, l1}, kTol));
  // label smoothing 0.1: 0.9·nll + 0.1·mean over classes of -log p
  const double u0 = lse0 - (1.0 + 2.0 + 0.5) / 3, u1 = lse1 - (-1.0 + 0.0 + 3.0) / 3;
  EXPECT_TRUE(all_close(nn::cross_entropy(logits, target, 0.1, nn::Reduction::sum),
                        {0.9 * (l0 + l1) + 0.1 * (u0 + u1)}, kTol));
  EXPECT_TRUE(all_close(nn::nll_loss(logits - logsumexp(logits, {1}, true), target),
                        {(l0 + l1) / 2}, kTol));
}

// On CPU the loss is one graph node on the path from the mean to the logits (it was a dozen:
// logsumexp, the one-hot pick, a product, a sum, a negation), so a step pays for one dispatch.
TEST(Loss, CrossEntropyIsOneNodeBetweenTheMeanAndTheLogits) {
  const Tensor logits = randn({8, 5}).requires_grad_(true);
  const Tensor loss = nn::cross_entropy(logits, from_vector<int64_t>({0, 1, 2, 3, 4, 0, 1, 2}));
  std::vector<std::string> path;  // node names from the loss down to the logits' leaf
  for (auto node = loss.grad_fn(); node != nullptr;) {
    path.push_back(node->name());
    std::vector<std::shared_ptr<autograd::Node>> inputs;  // those that want a gradient
    for (const autograd::Edge& e : node->next_edges())
      if (e.valid()) inputs.push_back(e.node);
    if (inputs.empty()) break;
    ASSERT_EQ(inputs.size(), 1u) << node->name();
    node = inputs[0];
  }
  ASSERT_GE(path.size(), 2u);
  EXPECT_EQ(path.back(), "AccumulateGrad");
  EXPECT_EQ(path[path.size() - 2], "cross_entropy");
  EXPECT_LE(path.size(), 4u) << ::testing::PrintToString(
      path);  // the mean's nodes, the loss, the leaf
}

TEST(Loss, RegressionLossesMatchFormulas) {
  const Tensor x = from_vector<double>({0.5, -2.0, 3.0});
  const Tensor y = from_vector<double>({1.0, 1.0, 2.8});
  EXPECT_TRUE(all_close(nn::mse_loss(x, y), {(0.25 + 9.0 + 0.04) / 3}, kTol));
  EXPECT_TRUE(all_close(nn::l1_loss(x, y, nn::Reduction::sum), {0.5 + 3.0 + 0.2}, kTol));
  EXPECT_TRUE(all_close(nn::huber_loss(x, y, 1.0, nn::Reduction::none),
                        {0.5 * 0.25, 3.0 - 0.5, 0.5 * 0.04}, kTol));
  const Tensor t = from_vector<double>({1.0, 0.0, 1.0});
  std::vector<double> bce;
  for (int i = 0; i < 3; ++i) {
    const double xi = std::vector<double>{0.5, -2.0, 3.0}[i], ti = std::vector<double>{1, 0, 1}[i];
    const double p = 1 / (1 + std::exp(-xi));
    bce.push_back(-(ti * std::log(p) + (1 - ti) * std::log(1 - p)));
  }
  EXPECT_TRUE(all_close(nn::bce_with_logits(x, t, nn::Reduction::none), bce, {1e-12, 1e-12}));
  // stable for large logits
  EXPECT_TRUE(
      all_close(nn::bce_with_logits(from_vector<double>({800.0}), from_vector<double>({0.0})),
                {800.0}, kTol));
}

TEST(Loss, GradientsMatchFiniteDifferences) {
  const Tensor logits = exadnn::testing::random_leaf({4, 5}, 1);
  const Tensor target = from_vector<int64_t>({0, 4, 2, 2});
  EXPECT_TRUE(gradcheck(
      [&](const std::vector<Tensor>& in) { return nn::cross_entropy(in[0], target, 0.2); },
      {logits}));
  const Tensor x = exadnn::testing::random_leaf({6}, 2), y = randn({6}, DType::f64);
  const Tensor bits = from_vector<double>({1, 0, 1, 1, 0, 0});
  for (auto loss : std::vector<std::function<Tensor(const Tensor&)>>{
           [&](const Tensor& v) { return nn::mse_loss(v, y); },
           [&](const Tensor& v) { return nn::l1_loss(v, y); },
           [&](const Tensor& v) { return nn::huber_loss(v, y, 0.7); },
           [&](const Tensor& v) { return nn::bce_with_logits(v, bits); }})
    EXPECT_TRUE(gradcheck([&](const std::vector<Tensor>& in) { return loss(in[0]); }, {x}));
}

TEST(Loss, BadTargetsAreNamed) {
  const Tensor logits = zeros({2, 3});
  EXPECT_EXADNN_ERROR(nn::cross_entropy(logits, from_vector<int64_t>({0, 1, 2})), "cross_entropy",
                      "[3]", "[2, 3]");
  EXPECT_EXADNN_ERROR(nn::cross_entropy(logits, from_vector<int64_t>({0, 3})), "cross_entropy",
                      "class index 3", "example 1", "[0, 3)");
  EXPECT_EXADNN_ERROR(nn::nll_loss(logits, from_vector<int64_t>({0, 3})), "one_hot", "3", "[0, 3)");
  EXPECT_EXADNN_ERROR(nn::cross_entropy(logits, zeros({2})), "cross_entropy", "integers");
  EXPECT_EXADNN_ERROR(nn::mse_loss(zeros({2}), zeros({3})), "mse_loss", "[2]", "[3]");
}
