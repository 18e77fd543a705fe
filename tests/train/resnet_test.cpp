// train::ResidualBlock and make_resnet: output shapes of every depth, parameter counts against
// the published ImageNet figures, gradients against finite differences, the config's layer
// kinds, and a short training run that overfits a tiny set.
#include "exadnn/train/resnet.h"

#include <cmath>

#include "exadnn/data/tensor_dataset.h"
#include "exadnn/exadnn.h"
#include "exadnn/train/config.h"
#include "exadnn/train/model_builder.h"
#include "exadnn/train/trainer.h"
#include "testing.h"

using namespace exadnn;
using train::ResidualBlock;

namespace {

Shape shape_of(const Tensor& t) {
  return t.shape();
}

// Logits of `net` for a random batch [2, channels, size, size] in evaluation mode.
Tensor logits(nn::Module& net, int64_t channels, int64_t size) {
  NoGradGuard no_grad;
  net.eval();
  return net.forward(randn({2, channels, size, size}));
}

}  // namespace

TEST(ResNet, EveryDepthMapsImagesToLogits) {
  for (int64_t depth : {18, 34, 50}) {
    auto net = train::make_resnet({.depth = depth, .in_channels = 3, .classes = 7, .width = 8});
    EXPECT_EQ(shape_of(logits(*net, 3, 64)), Shape({2, 7})) << "depth " << depth;
    auto small = train::make_resnet(
        {.depth = depth, .in_channels = 3, .classes = 5, .width = 8, .stem_kernel = 3});
    EXPECT_EQ(shape_of(logits(*small, 3, 16)), Shape({2, 5})) << "depth " << depth;
  }
}

// He et al. 2016, Table 1, as torchvision's resnet18/34/50 count them: 11.69 M, 21.80 M,
// 25.56 M parameters at 3 input channels and 1000 classes.
TEST(ResNet, ParameterCountsAreThePublishedOnes) {
  const std::vector<std::pair<int64_t, int64_t>> published = {
      {18, 11'689'512}, {34, 21'797'672}, {50, 25'557'032}};
  for (const auto& [depth, count] : published) {
    const train::ResNetOptions o{.depth = depth};
    EXPECT_EQ(train::resnet_parameter_count(o), count) << "depth " << depth;
    EXPECT_EQ(train::make_resnet(o)->parameter_count(), count) << "depth " << depth;
  }
}

TEST(ResNet, BadShapesAreErrorsNamingThem) {
  EXPECT_EXADNN_ERROR(train::make_resnet({.depth = 20}), "depth 20", "18, 34, 50");
  EXPECT_EXADNN_ERROR(train::make_resnet({.depth = 18, .stem_kernel = 5}), "stem 5");
  EXPECT_EXADNN_ERROR(train::make_resnet({.depth = 18, .classes = 0}), "classes 0");
  ResidualBlock block(ResidualBlock::Kind::basic, 4, 4, 1);
  EXPECT_EXADNN_ERROR(block.forward(zeros({1, 3, 8, 8})), "BasicBlock", "[N, 4, H, W]");
}

TEST(ResidualBlock, ShapesAndProjections) {
  ResidualBlock same(ResidualBlock::Kind::basic, 8, 8, 1);
  EXPECT_EQ(same.forward(randn({2, 8, 9, 9})).shape(), Shape({2, 8, 9, 9}));
  EXPECT_EQ(same.extra_repr().find("projection"), std::string::npos);
  ResidualBlock down(ResidualBlock::Kind::basic, 8, 16, 2);
  EXPECT_EQ(down.forward(randn({2, 8, 9, 9})).shape(), Shape({2, 16, 5, 5}));
  EXPECT_NE(down.extra_repr().find("projection"), std::string::npos);
  ResidualBlock bottleneck(ResidualBlock::Kind::bottleneck, 8, 4, 2);
  EXPECT_EQ(bottleneck.forward(randn({2, 8, 8, 8})).shape(), Shape({2, 16, 4, 4}));
  // The output passes through a final ReLU.
  EXPECT_GE(min(bottleneck.forward(randn({2, 8, 8, 8}))).item<double>(), 0.0);
}

// Input gradients of both kinds of block (with projection, training-mode batch norm) against
// central differences, in f64.
TEST(ResidualBlock, InputGradientsMatchFiniteDifferences) {
  for (auto kind : {ResidualBlock::Kind::basic, ResidualBlock::Kind::bottleneck}) {
    auto block = std::make_shared<ResidualBlock>(kind, 2, 2, 2);
    block->to(DType::f64);
    EXPECT_TRUE(exadnn::testing::gradcheck(
        [&](const std::vector<Tensor>& in) { return block->forward(in[0]); },
        {exadnn::testing::random_leaf({3, 2, 5, 5}, 11)}))
        << block->name();
  }
}

// The gradient of every parameter tensor's first element against a central difference of
// L = sum(w ⊙ block(x)).
TEST(ResidualBlock, ParameterGradientsMatchFiniteDifferences) {
  auto block = std::make_shared<ResidualBlock>(ResidualBlock::Kind::basic, 2, 3, 2);
  block->to(DType::f64);
  const Tensor x = randn({3, 2, 5, 5}, TensorOptions().dtype(DType::f64));
  const Tensor w = randn({3, 3, 3, 3}, TensorOptions().dtype(DType::f64));
  const auto loss = [&] { return sum(block->forward(x) * w); };
  block->zero_grad();
  loss().backward();
  const double h = 1e-6;
  // body: 2 convolutions and 2 batch norms; the projection: 1 and 1.
  EXPECT_EQ(block->named_parameters().size(), 2u + 4u + 1u + 2u);
  for (const auto& [name, p] : block->named_parameters()) {
    const double analytic = p.grad().contiguous().data<double>()[0];
    double* v = p.data<double>();
    const double keep = v[0];
    NoGradGuard no_grad;
    v[0] = keep + h;
    const double up = loss().item<double>();
    v[0] = keep - h;
    const double down = loss().item<double>();
    v[0] = keep;
    EXPECT_NEAR(analytic, (up - down) / (2 * h), 1e-5 * (1 + std::abs(analytic))) << name;
  }
}

TEST(ResNet, ConfigLayersBuildTheNetwork) {
  const train::TrainConfig c = train::parse_config(
      "model:\n  - resnet: {depth: 18, classes: 10, width: 8, stem: 3}\n", "resnet.yaml");
  auto net = train::build_model(c.model, Shape({3, 32, 32}));
  EXPECT_EQ(net->parameter_count(),
            train::resnet_parameter_count(
                {.depth = 18, .in_channels = 3, .classes = 10, .width = 8, .stem_kernel = 3}));
  EXPECT_EQ(shape_of(logits(*net, 3, 32)), Shape({2, 10}));
  const train::LayerKind& kind = train::layers().at("resnet");
  EXPECT_EQ(kind.parameters(c.model[0].settings, Shape({3, 32, 32})), net->parameter_count());

  const train::TrainConfig blocks = train::parse_config(
      "model:\n  - conv2d: {out: 8, kernel: 3, padding: 1}\n  - basic_block: {out: 16, stride: 2}\n"
      "  - bottleneck: {planes: 4}\n  - flatten\n  - linear: {out: 3}\n",
      "blocks.yaml");
  auto chain = train::build_model(blocks.model, Shape({1, 8, 8}));
  EXPECT_EQ(shape_of(logits(*chain, 1, 8)), Shape({2, 3}));
  const auto& basic = train::layers().at("basic_block");
  EXPECT_EQ(basic.parameters(blocks.model[1].settings, Shape({8, 8, 8})),
            (*chain)[1]->parameter_count());
  EXPECT_EQ(
      train::layers().at("bottleneck").parameters(blocks.model[2].settings, Shape({16, 4, 4})),
      (*chain)[2]->parameter_count());

  EXPECT_EXADNN_ERROR(train::build_model(train::parse_config("model:\n  - resnet: {depth: 19, "
                                                             "classes: 2}\n",
                                                             "bad.yaml")
                                             .model,
                                         Shape({3, 8, 8})),
                      "depth 19");
  EXPECT_EXADNN_ERROR(train::parse_config("model:\n  - resnet: {depth: 18}\n", "bad.yaml"),
                      "needs 'classes'");
  EXPECT_EXADNN_ERROR(train::build_model(c.model, Shape({32})), "resnet", "[channels, height");
}

// A ResNet-18 (width 8, 3x3 stem) through the Trainer memorises 16 random images of 4 classes:
// the loss falls and every training image ends up classified right.
TEST(ResNet, TrainerOverfitsATinySet) {
  manual_seed(3);
  const Tensor x = randn({16, 3, 12, 12});
  std::vector<int64_t> labels(16);
  for (int64_t i = 0; i < 16; ++i) labels[static_cast<size_t>(i)] = i % 4;
  const Tensor y = from_vector<int64_t>(labels, {16});
  train::TrainConfig c = train::parse_config(
      "model:\n  - resnet: {depth: 18, classes: 4, width: 8, stem: 3}\n"
      "optimizer: {name: adam, lr: 0.003}\nepochs: 25\nseed: 1\n",
      "overfit.yaml");
  c.data.batch_size = 8;
  train::TrainerParts parts;
  parts.data.train = std::make_shared<data::TensorDataset>(x, y);
  parts.data.test = parts.data.train;  // scored on the training set: memorised or not
  train::Trainer trainer(c, {}, std::move(parts));
  const double accuracy = trainer.fit();
  const auto& h = trainer.history();
  EXPECT_LT(h.back().train_loss, 0.2 * h.front().train_loss);
  EXPECT_EQ(accuracy, 1.0);
}
