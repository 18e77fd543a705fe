// Class imbalance: inverse-frequency weights, the class-weighted cross-entropy against a hand
// computation and finite differences, the balanced sampler's class histogram, the config's
// class_balance section, and both through the Trainer.
#include "exadnn/train/class_balance.h"

#include <cmath>
#include <fstream>
#include <nlohmann/json.hpp>

#include "exadnn/data/tensor_dataset.h"
#include "exadnn/exadnn.h"
#include "exadnn/train/config.h"
#include "exadnn/train/trainer.h"
#include "scratch_dir.h"
#include "testing.h"

using namespace exadnn;

TEST(ClassWeights, InverseFrequency) {
  // N = 100 over K = 3 present classes: w_c = 100 / (3 n_c); the absent class gets 0.
  const std::vector<double> w = train::inverse_frequency_weights({30, 10, 0, 60});
  ASSERT_EQ(w.size(), 4u);
  EXPECT_DOUBLE_EQ(w[0], 100.0 / 90.0);
  EXPECT_DOUBLE_EQ(w[1], 100.0 / 30.0);
  EXPECT_DOUBLE_EQ(w[2], 0.0);
  EXPECT_DOUBLE_EQ(w[3], 100.0 / 180.0);
  EXPECT_EQ(train::class_counts({0, 2, 2, 1, 2}, 3), (std::vector<int64_t>{1, 1, 3}));
  EXPECT_EXADNN_ERROR(train::class_counts({0, 3}, 3), "example 1", "label 3");
  train::ClassBalanceSpec given;
  given.loss_weights = "given";
  given.weights = {1, 2};
  EXPECT_EXADNN_ERROR(train::class_weights(given, {0, 1}, 3), "lists 2 weights", "3 classes");
}

// sum_i w[y_i] CE_i / sum_i w[y_i], each CE_i = log(sum_j exp z_ij) - z_i,y_i by hand.
TEST(WeightedCrossEntropy, EqualsAHandComputation) {
  const std::vector<std::vector<double>> z = {{2, 0, -1}, {0.5, 0.5, 0}, {0, 1, 3}};
  const std::vector<int64_t> y = {0, 2, 1};
  const std::vector<double> w = {1, 3, 0.5};
  double num = 0, den = 0;
  for (size_t i = 0; i < z.size(); ++i) {
    double s = 0;
    for (double v : z[i]) s += std::exp(v);
    const double ce = std::log(s) - z[i][static_cast<size_t>(y[i])];
    num += w[static_cast<size_t>(y[i])] * ce;
    den += w[static_cast<size_t>(y[i])];
  }
  const Tensor logits = from_vector<double>({2, 0, -1, 0.5, 0.5, 0, 0, 1, 3}, {3, 3});
  const Tensor target = from_vector<int64_t>(y, {3});
  const Tensor loss = train::weighted_cross_entropy(logits, target, from_vector<double>(w, {3}));
  EXPECT_NEAR(loss.item<double>(), num / den, 1e-12);
  // Equal weights: the plain mean cross-entropy.
  EXPECT_NEAR(train::weighted_cross_entropy(logits, target, from_vector<double>({2, 2, 2}, {3}))
                  .item<double>(),
              nn::cross_entropy(logits, target).item<double>(), 1e-12);
  EXPECT_EXADNN_ERROR(train::weighted_cross_entropy(logits, from_vector<int64_t>({0, 0, 0}, {3}),
                                                    from_vector<double>({0, 1, 1}, {3})),
                      "weight 0");
  EXPECT_EXADNN_ERROR(
      train::weighted_cross_entropy(logits, target, from_vector<double>({1, 1}, {2})),
      "weights [C]");
}

TEST(WeightedCrossEntropy, GradientsMatchFiniteDifferences) {
  const Tensor target = from_vector<int64_t>({0, 2, 1, 2}, {4});
  const Tensor weights = from_vector<double>({0.5, 2, 1.5}, {3});
  EXPECT_TRUE(exadnn::testing::gradcheck(
      [&](const std::vector<Tensor>& in) {
        return train::weighted_cross_entropy(in[0], target, weights);
      },
      {exadnn::testing::random_leaf({4, 3}, 5)}));
}

// 20:1:1 labels; 10 epochs of draws: each class's count within 5 standard deviations of a third.
TEST(BalancedSampler, ClassHistogramIsFlat) {
  std::vector<int64_t> labels(2000, 0);
  labels.insert(labels.end(), 100, 1);
  labels.insert(labels.end(), 100, 2);
  const train::BalancedSampler sampler(labels, 42);
  std::vector<int64_t> histogram(3, 0);
  int64_t draws = 0;
  for (int64_t epoch = 0; epoch < 10; ++epoch) {
    const std::vector<int64_t> idx = sampler.epoch_indices(epoch);
    ASSERT_EQ(idx.size(), labels.size());
    for (int64_t i : idx) ++histogram[static_cast<size_t>(labels[static_cast<size_t>(i)])];
    draws += static_cast<int64_t>(idx.size());
  }
  const double expected = draws / 3.0, sigma = std::sqrt(draws * (1.0 / 3) * (2.0 / 3));
  for (int64_t c = 0; c < 3; ++c)
    EXPECT_LT(std::abs(histogram[static_cast<size_t>(c)] - expected), 5 * sigma) << "class " << c;
  EXPECT_EQ(sampler.epoch_indices(3), sampler.epoch_indices(3));  // (seed, epoch) only
  EXPECT_NE(sampler.epoch_indices(3), sampler.epoch_indices(4));
  EXPECT_NE(sampler.epoch_indices(3), train::BalancedSampler(labels, 43).epoch_indices(3));
}

TEST(ClassBalanceConfig, ReadsAndRefuses) {
  const auto with = [](const std::string& section, const std::string& loss = "cross_entropy") {
    return train::parse_config(
        "model:\n  - linear: {out: 2}\nloss: " + loss + "\nclass_balance: " + section + "\n",
        "cb.yaml");
  };
  const train::TrainConfig a = with("{loss_weights: inverse_frequency, sampling: balanced}");
  EXPECT_EQ(a.class_balance.loss_weights, "inverse_frequency");
  EXPECT_TRUE(a.class_balance.balanced());
  const train::TrainConfig b = with("{loss_weights: [1, 2.5]}");
  EXPECT_EQ(b.class_balance.loss_weights, "given");
  EXPECT_EQ(b.class_balance.weights, (std::vector<double>{1, 2.5}));
  EXPECT_FALSE(b.class_balance.balanced());
  EXPECT_FALSE(train::parse_config("model:\n  - relu\n", "x.yaml").class_balance.weighted());
  EXPECT_EXADNN_ERROR(with("{sampling: oversample}"), "cb.yaml:4", "'oversample'",
                      "shuffle, balanced");
  EXPECT_EXADNN_ERROR(with("{loss_weights: [1, -2]}"), "loss_weights[1]");
  EXPECT_EXADNN_ERROR(with("{loss_weights: [0, 0]}"), "at least one weight above 0");
  EXPECT_EXADNN_ERROR(with("{loss_weights: sqrt}"), "'sqrt'", "inverse_frequency");
  EXPECT_EXADNN_ERROR(with("{loss_weights: inverse_frequency}", "mse"), "cross_entropy", "'mse'");
  EXPECT_EXADNN_ERROR(with("{weights: [1]}"), "unknown key 'weights'");
}

namespace {
// 3 classes of 8-dimensional points around distinct centres, 20:1:1 examples.
train::TrainingData imbalanced_set() {
  manual_seed(9);
  const int64_t n = 440;
  std::vector<int64_t> y(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) y[static_cast<size_t>(i)] = i < 400 ? 0 : (i < 420 ? 1 : 2);
  const Tensor labels = from_vector<int64_t>(y, {n});
  const Tensor centres = randn({3, 8}) * 2.0;
  const Tensor x = randn({n, 8}) + matmul(nn::one_hot(labels, 3), centres);
  train::TrainingData d;
  d.train = std::make_shared<data::TensorDataset>(x, labels);
  d.test = d.train;
  return d;
}
}  // namespace

// Both remedies through the Trainer; --metrics-out then holds the per-class figures and the
// confusion matrix beside it as a PNG.
TEST(ClassBalanceTrainer, WeightedBalancedRunWritesPerClassMetrics) {
  const exadnn::testing::ScratchDir dir("exadnn_cb_");
  train::TrainConfig c = train::parse_config(
      "model:\n  - linear: {out: 16}\n  - relu\n  - linear: {out: 3}\n"
      "class_balance: {loss_weights: inverse_frequency, sampling: balanced}\n"
      "optimizer: {name: adam, lr: 0.01}\nepochs: 3\nseed: 2\n",
      "cb.yaml");
  c.data.batch_size = 32;
  train::TrainerParts parts;
  parts.data = imbalanced_set();
  train::Trainer trainer(c, {.metrics_out = dir.file("m.json")}, std::move(parts));
  trainer.fit();
  EXPECT_LT(trainer.history().back().train_loss, trainer.history().front().train_loss);
  std::ifstream in(dir.file("m.json"));
  const nlohmann::json j = nlohmann::json::parse(in);
  ASSERT_TRUE(j.contains("classes"));
  const nlohmann::json& k = j["classes"];
  EXPECT_EQ(k["classes"], 3);
  EXPECT_EQ(k["examples"], 440);
  EXPECT_EQ(k["per_class"][0]["support"], 400);
  EXPECT_EQ(k["confusion_matrix"].size(), 3u);
  EXPECT_DOUBLE_EQ(k["top1_accuracy"].get<double>(), j["test_accuracy"].get<double>());
  EXPECT_EQ(k["top_k"], 3);
  EXPECT_DOUBLE_EQ(k["top_k_accuracy"].get<double>(), 1.0);
  EXPECT_TRUE(std::filesystem::exists(dir.file("m.confusion.png")));
  EXPECT_EQ(k["confusion_png"], dir.file("m.confusion.png"));
}

// data.class_names name the per-class figures; a count that does not match the model's classes
// is refused before the first step.
TEST(ClassBalanceTrainer, ClassNamesNameThePerClassMetrics) {
  const exadnn::testing::ScratchDir dir("exadnn_cn_");
  const std::string model = "model:\n  - linear: {out: 3}\nepochs: 1\n";
  train::TrainConfig c =
      train::parse_config("data: {class_names: [common, rare, rarer]}\n" + model, "n.yaml");
  train::TrainerParts parts;
  parts.data = imbalanced_set();
  train::Trainer trainer(c, {.metrics_out = dir.file("m.json")}, std::move(parts));
  trainer.fit();
  std::ifstream in(dir.file("m.json"));
  const nlohmann::json j = nlohmann::json::parse(in);
  ASSERT_EQ(j["classes"]["per_class"].size(), 3u);
  EXPECT_EQ(j["classes"]["per_class"][0]["name"], "common");
  EXPECT_EQ(j["classes"]["per_class"][2]["name"], "rarer");

  train::TrainConfig wrong =
      train::parse_config("data: {class_names: [common, rare]}\n" + model, "w.yaml");
  train::TrainerParts more;
  more.data = imbalanced_set();
  EXPECT_EXADNN_ERROR(train::Trainer(wrong, {}, std::move(more)),
                      "data.class_names names 2 classes, but the model scores 3");
  // A program's own data without names: no names (the config's dataset kind is not its data).
  train::TrainerParts own;
  own.data = imbalanced_set();
  train::Trainer unnamed(train::parse_config(model, "u.yaml"), {.metrics_out = dir.file("u.json")},
                         std::move(own));
  unnamed.fit();
  std::ifstream in_unnamed(dir.file("u.json"));
  EXPECT_FALSE(nlohmann::json::parse(in_unnamed)["classes"]["per_class"][0].contains("name"));
}

TEST(ClassBalanceTrainer, BadWeightsAndValueTargetsAreRefused) {
  train::TrainConfig c = train::parse_config(
      "model:\n  - linear: {out: 3}\nclass_balance: {loss_weights: [1, 2]}\n", "cb.yaml");
  train::TrainerParts parts;
  parts.data = imbalanced_set();
  EXPECT_EXADNN_ERROR(train::Trainer(c, {}, std::move(parts)), "lists 2 weights", "3 classes");
  train::TrainConfig values = train::parse_config(
      "model:\n  - linear: {out: 1}\nloss: mse\nclass_balance: {sampling: balanced}\n", "v.yaml");
  train::TrainerParts regression;
  const Tensor x = randn({8, 2});
  regression.data.train = std::make_shared<data::TensorDataset>(x, randn({8, 1}));
  EXPECT_EXADNN_ERROR(train::Trainer(values, {}, std::move(regression)), "class labels");
}
