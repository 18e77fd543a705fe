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
  for (const char* name : {"conv2d", "maxpool2d", "avgpool2d", "batchnorm", "dropout", "leaky_relu",
                           "relu", "gelu", "sigmoid", "tanh", "flatten"})
    EXPECT_TRUE(train::layers().contains(name)) << name;
}

TEST(Registry, BuiltInLossesOneHotClassIndicesForValueLosses) {
  const Tensor out = from_vector<float>({0.f, 1.f, 0.f, 0.f}).reshape({2, 2});
  const Tensor target = from_vector<int64_t>({1, 0});
  // One-hot of [1, 0] is [[0, 1], [1, 0]]: one of the four values is off by 1.
  EXPECT_DOUBLE_EQ(train::losses().at("mse")(out, target).item_double(), 0.25);
  EXPECT_GT(train::losses().at("cross_entropy")(out, target).item_double(), 0.0);
}
