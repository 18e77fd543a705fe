// cbed::make_classify_data (generated stacks as a classification set) and a short ResNet run on
// it through exadnn's Trainer: the CI-sized check of the crystal-system classifier
// (tools/cbed_classify_train.cpp trains the real one).
#include "cbed/classify_data.h"

#include <gtest/gtest.h>

#include <exadnn/exadnn.h>
#include <exadnn/train/class_metrics.h>
#include <exadnn/train/trainer.h>

namespace {

// One group per crystal system, 16x16 kinematic stacks.
cbed::ClassifyDataOptions small(int64_t materials) {
  cbed::ClassifyDataOptions o;
  o.generate.groups = {2, 14, 62, 139, 166, 194, 225};
  o.generate.stack.kinematic = true;
  o.generate.stack.detector_mrad = 4.0;
  o.generate.stack.multislice.grid.nx = o.generate.stack.multislice.grid.ny = 16;
  o.materials = materials;
  o.test_fraction = 0.3;
  return o;
}

}  // namespace

TEST(ClassifyData, LabelsSplitsAndScale) {
  const cbed::ClassifyData d = cbed::make_classify_data(small(42));
  ASSERT_EQ(d.class_names.size(), 7u);
  EXPECT_EQ(d.class_names[0], "triclinic");
  EXPECT_EQ(d.class_names[6], "cubic");
  EXPECT_EQ(d.train->size() + d.test->size(), 42);  // imbalance 1 keeps every material
  EXPECT_GT(d.test->size(), 0);
  EXPECT_EQ(d.train->inputs().shape(), exadnn::Shape({d.train->size(), 3, 16, 16}));
  // Material m is of group m % 7, so its class is m % 7 too: each class has 6 materials.
  int64_t total = 0;
  for (int64_t n : d.train_counts) total += n;
  EXPECT_EQ(total, d.train->size());
  const exadnn::Tensor x = d.train->inputs();
  EXPECT_GE(exadnn::min(x).item<double>(), 0.0);
  EXPECT_LE(exadnn::max(x).item<double>(), 1.0 + 1e-6);
  EXPECT_EQ(exadnn::max(d.test->targets()).item<int64_t>() < 7, true);

  cbed::ClassifyDataOptions groups = small(14);
  groups.task = cbed::ClassifyTask::space_group;
  const cbed::ClassifyData g = cbed::make_classify_data(groups);
  EXPECT_EQ(g.class_names, (std::vector<std::string>{"2", "14", "62", "139", "166", "194", "225"}));
}

TEST(ClassifyData, ImbalanceThinsTheLaterClassesOfTheTrainingSet) {
  cbed::ClassifyDataOptions o = small(560);
  o.imbalance = 20;
  o.generate.stack.multislice.grid.nx = o.generate.stack.multislice.grid.ny = 8;
  const cbed::ClassifyData d = cbed::make_classify_data(o);
  // n_c = A 20^(-c/6): triclinic 20 times cubic, within rounding.
  ASSERT_GT(d.train_counts.back(), 0);
  EXPECT_NEAR(double(d.train_counts.front()) / double(d.train_counts.back()), 20.0, 20.0 / 2);
  for (size_t c = 1; c < d.train_counts.size(); ++c)
    EXPECT_LE(d.train_counts[c], d.train_counts[c - 1]) << d.class_names[c];
  o.imbalance = 0.5;
  try {
    cbed::make_classify_data(o);
    ADD_FAILURE() << "imbalance 0.5 accepted";
  } catch (const exadnn::Error& e) {
    EXPECT_NE(std::string(e.what()).find("imbalance 0.5"), std::string::npos) << e.what();
  }
}

// A narrow ResNet-18 through the Trainer on 70 materials: the loss falls, and the per-class
// figures cover the 7 systems.
TEST(ClassifyTrain, ResNetTrainsThroughTheTrainer) {
  const cbed::ClassifyData d = cbed::make_classify_data(small(70));
  exadnn::train::TrainConfig c = exadnn::train::parse_config(
      "data: {batch_size: 16}\nmodel:\n  - resnet: {depth: 18, classes: 7, width: 4, stem: 3}\n"
      "optimizer: {name: adam, lr: 0.003}\nepochs: 4\nseed: 1\n",
      "classify.yaml");
  exadnn::train::TrainerParts parts;
  parts.data.train = d.train;
  parts.data.test = d.test;
  exadnn::train::Trainer trainer(c, {}, std::move(parts));
  trainer.fit();
  EXPECT_LT(trainer.history().back().train_loss, trainer.history().front().train_loss);
  const exadnn::train::ClassMetrics m =
      exadnn::train::evaluate_classes(trainer.model(), trainer.data(), 16, 7);
  EXPECT_EQ(m.total(), d.test->size());
  EXPECT_EQ(m.classes(), 7);
}
