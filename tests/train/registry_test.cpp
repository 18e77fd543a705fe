// The name → factory tables of the train layer: one definition per name, unknown names listed.
#include "exadnn/train/registry.h"
#include "exadnn/train/layers.h"
#include "exadnn/train/losses.h"
#include "testing.h"

using namespace exadnn;

TEST(Registry, OneDefinitionPerNameAndUnknownNamesListTheKnown) {
  train::Registry<int> r("widget");
  r.add("b", 2);
  r.add("a", 1);
  EXPECT_EQ(r.at("a"), 1);
  EXPECT_TRUE(r.contains("b"));
  EXPECT_EQ(r.names(), (std::vector<std::string>{"a", "b"}));
  EXPECT_EXADNN_ERROR(r.add("a", 3), "the widget 'a' is registered already");
  EXPECT_EXADNN_ERROR(r.add("", 3), "a widget needs a name");
  EXPECT_EXADNN_ERROR(r.at("c"), "unknown widget 'c' (known: a, b)");
}

TEST(Registry, BuiltInLayersBuildForTheShapeTheyReceive) {
  const train::LayerKind& linear = train::layers().at("linear");
  train::LayerSettings s;
  s.set("out", 5);
  EXPECT_EQ(linear.parameters(s, {7}), 7 * 5 + 5);
  EXPECT_EQ(linear.make(s, {7})->forward(zeros({2, 7})).shape(), (Shape{2, 5}));
  EXPECT_EXADNN_ERROR(linear.make(s, {1, 8, 8}), "receives examples of shape [1, 8, 8]",
                      "add 'flatten' before it");
  for (const char* name : {"conv2d", "maxpool2d", "avgpool2d", "global_avgpool", "batchnorm",
                           "dropout", "leaky_relu", "relu", "gelu", "sigmoid", "tanh", "flatten"})
    EXPECT_TRUE(train::layers().contains(name)) << name;
}

// global_avgpool: [N, C, H, W] → [N, C], each channel's mean; its gradient spreads 1 / (H·W).
TEST(Registry, GlobalAvgPoolMeansEachChannelOverTheImage) {
  const train::LayerKind& pool = train::layers().at("global_avgpool");
  const train::LayerSettings none;
  std::vector<float> values(2 * 2 * 3 * 4);
  for (size_t i = 0; i < values.size(); ++i) values[i] = static_cast<float>(i * i % 7);
  Tensor x = from_vector<float>(values).reshape({2, 2, 3, 4}).requires_grad_(true);
  const Tensor y = pool.make(none, {2, 3, 4})->forward(x);
  ASSERT_EQ(y.shape(), (Shape{2, 2}));
  for (int64_t n = 0; n < 2; ++n)
    for (int64_t c = 0; c < 2; ++c) {
      double total = 0;
      for (int64_t k = 0; k < 12; ++k) total += values[(n * 2 + c) * 12 + k];
      EXPECT_NEAR(y[n][c].item_double(), total / 12, 1e-6) << n << ", " << c;
    }
  sum(y).backward();
  const Tensor grad = x.grad().contiguous();
  for (int64_t i = 0; i < x.numel(); ++i) EXPECT_NEAR(grad.data<float>()[i], 1.0 / 12, 1e-7) << i;
  EXPECT_EXADNN_ERROR(pool.make(none, {7}), "receives examples of shape [7]",
                      "[channels, height, width] images");
}

TEST(Registry, BuiltInLossesOneHotClassIndicesForValueLosses) {
  const Tensor out = from_vector<float>({0.f, 1.f, 0.f, 0.f}).reshape({2, 2});
  const Tensor target = from_vector<int64_t>({1, 0});
  // One-hot of [1, 0] is [[0, 1], [1, 0]]: one of the four values is off by 1.
  EXPECT_DOUBLE_EQ(train::losses().at("mse")(out, target).item_double(), 0.25);
  EXPECT_GT(train::losses().at("cross_entropy")(out, target).item_double(), 0.0);
}
