// train::Trainer: the loop's hooks, a program's own model and data (TrainerParts), the threaded
// strategies through the same loop, and what a second fit() does.
#include "exadnn/train/trainer.h"

#include <cmath>
#include <filesystem>

#include "exadnn/exadnn.h"
#include "scratch_dir.h"
#include "testing.h"
#include "tiny_idx.h"

using namespace exadnn;
namespace fs = std::filesystem;

namespace {

// The tiny quadrant task (192 training images, batch 16: 12 steps an epoch) in `dir`.
train::TrainConfig tiny_in(const fs::path& dir, int epochs) {
  fixtures::write_split(dir, "train", 192, 1);
  fixtures::write_split(dir, "test", 60, 2);
  return fixtures::tiny_config(dir, epochs);
}

// Subnormals are flushed while fit() trains (flush_denormals: true, the default) and the caller's
// setting is back after; `flush_denormals: false` keeps them.
TEST(Trainer, FlushesSubnormalsWhileTrainingOnly) {
#if !defined(__SSE2__)
  GTEST_SKIP() << "FTZ/DAZ are x86 settings";
#endif
  const exadnn::testing::ScratchDir dir("exadnn_train_");
  for (bool flush : {true, false}) {
    train::TrainConfig config = tiny_in(dir.path(), 1);
    config.flush_denormals = flush;
    train::Trainer trainer(config);
    std::vector<bool> seen;
    trainer.on_step([&](const train::StepEvent&) { seen.push_back(flush_denormals()); });
    set_flush_denormals(false);
    trainer.fit();
    ASSERT_FALSE(seen.empty());
    EXPECT_EQ(seen.front(), flush);
    EXPECT_EQ(seen.back(), flush);
    EXPECT_FALSE(flush_denormals());  // the caller's setting back
  }
}

TEST(Trainer, HooksSeeEveryStepEpochAndCheckpoint) {
  const exadnn::testing::ScratchDir dir("exadnn_train_");
  train::Trainer trainer(tiny_in(dir.path(), 2),
                         {.checkpoint_dir = (dir.path() / "ckpt").string()});
  std::vector<int64_t> starts, step_epochs, epochs, checkpoint_epochs;
  int64_t examples = 0;
  trainer.on_epoch_start([&](int64_t epoch, int64_t last, int64_t batches) {
    starts.push_back(epoch);
    EXPECT_EQ(last, 2);
    EXPECT_EQ(batches, 12);
  });
  trainer.on_step([&](const train::StepEvent& s) {
    EXPECT_EQ(s.index, static_cast<int64_t>(step_epochs.size()) - 12 * (s.epoch - 1));
    step_epochs.push_back(s.epoch);
    examples += s.examples;
    EXPECT_TRUE(std::isfinite(s.loss));
    EXPECT_FALSE(s.skipped);
  });
  trainer.on_epoch([&](const train::EpochRecord& e) { epochs.push_back(e.epoch); });
  trainer.on_checkpoint([&](const std::string& path, int64_t epoch) {
    EXPECT_EQ(path, (dir.path() / "ckpt" / "last.ckpt").string());
    EXPECT_TRUE(fs::exists(path));  // written before the hook runs
    checkpoint_epochs.push_back(epoch);
  });
  const double accuracy = trainer.fit();
  EXPECT_GT(accuracy, 0.9);  // the 3 quadrant classes are learnt
  EXPECT_EQ(starts, (std::vector<int64_t>{1, 2}));
  EXPECT_EQ(step_epochs.size(), 24u);
  EXPECT_EQ(examples, 2 * 192);
  EXPECT_EQ(epochs, (std::vector<int64_t>{1, 2}));
  EXPECT_EQ(checkpoint_epochs, (std::vector<int64_t>{1, 2}));
  ASSERT_EQ(trainer.history().size(), 2u);
  EXPECT_EQ(trainer.history().back().test_accuracy, accuracy);
  // A second fit() has no epochs left: it trains nothing and reports the same score.
  EXPECT_EQ(trainer.fit(), accuracy);
  EXPECT_EQ(step_epochs.size(), 24u);
  EXPECT_DOUBLE_EQ(trainer.evaluate(), accuracy);
}

// data.drop_last: 200 images in batches of 16 are 12 full batches and one of 8; with drop_last the
// epoch takes the 12 full ones only (192 examples), without it all 13 (200). A training set
// shorter than one batch is refused rather than training on nothing.
TEST(Trainer, DropLastLeavesOutTheShortBatch) {
  const exadnn::testing::ScratchDir dir("exadnn_train_");
  fixtures::write_split(dir.path(), "train", 200, 1);
  fixtures::write_split(dir.path(), "test", 60, 2);
  for (bool drop : {false, true}) {
    train::TrainConfig config = fixtures::tiny_config(dir.path(), 1);
    config.data.drop_last = drop;
    train::Trainer trainer(config);
    int64_t batches = 0, steps = 0, examples = 0, smallest = 16;
    trainer.on_epoch_start([&](int64_t, int64_t, int64_t b) { batches = b; });
    trainer.on_step([&](const train::StepEvent& s) {
      ++steps;
      examples += s.examples;
      smallest = std::min(smallest, s.examples);
    });
    trainer.fit();
    EXPECT_EQ(batches, drop ? 12 : 13) << "drop_last " << drop;
    EXPECT_EQ(steps, batches);
    EXPECT_EQ(examples, drop ? 192 : 200);
    EXPECT_EQ(smallest, drop ? 16 : 8);
  }
  train::TrainConfig too_few = fixtures::tiny_config(dir.path(), 1);
  too_few.data.drop_last = true;
  too_few.data.batch_size = 256;
  EXPECT_EXADNN_ERROR(train::Trainer(too_few).fit(), "shorter than one batch of 256 examples");
}

// A training run hands back every block it takes: the MemoryManager's live-block count and bytes
// in use return to their start values once the Trainer is gone (a leak of one tensor per step
// would grow them by hundreds here; the cache may keep freed blocks, which are not live).
TEST(Trainer, ATrainingRunReturnsEveryBlockItTook) {
  const exadnn::testing::ScratchDir dir("exadnn_train_");
  const train::TrainConfig config = tiny_in(dir.path(), 3);
  const MemoryStats before = MemoryManager::instance().stats(MemoryKind::host);
  {
    train::Trainer trainer(config, {.checkpoint_dir = (dir.path() / "ckpt").string()});
    EXPECT_GT(trainer.fit(), 0.9);
    EXPECT_GT(MemoryManager::instance().stats(MemoryKind::host).live_blocks, before.live_blocks);
  }
  const MemoryStats after = MemoryManager::instance().stats(MemoryKind::host);
  EXPECT_EQ(after.live_blocks, before.live_blocks);
  EXPECT_EQ(after.bytes_in_use, before.bytes_in_use);
  EXPECT_GT(after.allocation_count, before.allocation_count + 100);  // it did allocate
}

// y = 2x - 1 from 256 noisy-free samples: a program's own model, data and score; the config
// gives only the optimizer, the loss and the loop's settings.
TEST(Trainer, TrainsAProgramsOwnModelAndDataWithItsOwnScore) {
  manual_seed(3);
  const Tensor x = rand({256, 1}) * 2.0 - 1.0;
  const Tensor y = x * 2.0 - 1.0;
  train::TrainerParts parts;
  parts.model = std::make_shared<nn::Linear>(nn::LinearOptions(1, 1));
  parts.data.train = std::make_shared<data::TensorDataset>(x, y);
  parts.data.test = std::make_shared<data::TensorDataset>(x, y);
  parts.score = [](nn::Module& m, const train::TrainingData& d) {  // minus the test MSE
    NoGradGuard no_grad;
    const auto& test = dynamic_cast<const data::TensorDataset&>(*d.test);
    return -nn::mse_loss(m.forward(test.inputs()), test.targets()).item<double>();
  };
  train::TrainConfig config;
  config.model.clear();
  config.loss = "mse";
  config.optimizer = {.name = "sgd", .lr = 0.1, .momentum = 0.9};
  config.data.batch_size = 32;
  config.epochs = 30;
  train::Trainer trainer(config, {}, std::move(parts));
  const double before = trainer.evaluate();
  const double after = trainer.fit();
  EXPECT_LT(before, -0.1);
  EXPECT_GT(after, -1e-6);  // the exact line is in the model's reach
  EXPECT_GT(after, before);
}

// best.ckpt: written at the epochs whose test score beats every earlier one. Scores 0.5, 0.7, 0.6,
// 0.7: epochs 1 and 2 (the tie at 4 keeps epoch 2); last.ckpt is epoch 4. Resumed for a fifth
// epoch scoring 0.9, the run writes best.ckpt again (the history came back with last.ckpt).
TEST(Trainer, BestCheckpointKeepsTheEpochOfTheHighestScore) {
  const exadnn::testing::ScratchDir dir("exadnn_train_best_");
  const std::vector<double> scores{0.5, 0.7, 0.6, 0.7, 0.9};
  size_t calls = 0;
  auto make = [&](int epochs, bool resume) {
    manual_seed(3);
    const Tensor x = rand({64, 1});
    train::TrainerParts parts;
    parts.model = std::make_shared<nn::Linear>(nn::LinearOptions(1, 1));
    parts.data.train = std::make_shared<data::TensorDataset>(x, x);
    parts.data.test = parts.data.train;
    parts.score = [&](nn::Module&, const train::TrainingData&) { return scores.at(calls++); };
    train::TrainConfig config;
    config.model.clear();
    config.loss = "mse";
    config.data.batch_size = 32;
    config.epochs = epochs;
    return std::make_unique<train::Trainer>(
        config, train::TrainOptions{.checkpoint_dir = dir.file("ckpt"), .resume = resume},
        std::move(parts));
  };
  const auto epoch_of = [&](const std::string& name) {
    return io::load_checkpoint(dir.file("ckpt/" + name)).metadata.at("epoch");
  };
  make(4, false)->fit();
  EXPECT_EQ(calls, 4u);
  EXPECT_EQ(epoch_of("last.ckpt"), "4");
  EXPECT_EQ(epoch_of("best.ckpt"), "2");
  // best.ckpt is a whole checkpoint: the model of epoch 2, which differs from epoch 4's.
  const io::Checkpoint best = io::load_checkpoint(dir.file("ckpt/best.ckpt"));
  const io::Checkpoint last = io::load_checkpoint(dir.file("ckpt/last.ckpt"));
  EXPECT_FALSE(
      exadnn::testing::all_close(best.tensors.at("model.weight"), last.tensors.at("model.weight")));
  make(5, true)->fit();
  EXPECT_EQ(calls, 5u);
  EXPECT_EQ(epoch_of("last.ckpt"), "5");
  EXPECT_EQ(epoch_of("best.ckpt"), "5");
}

TEST(Trainer, ThreadedStrategiesRunWholeEpochsThroughTheLoop) {
  const exadnn::testing::ScratchDir dir("exadnn_train_");
  train::TrainConfig config = tiny_in(dir.path(), 3);
  config.hogwild = {.enabled = true, .mode = "threads_sync", .threads = 2, .accumulate = 1};
  train::Trainer trainer(config);
  int64_t steps = 0, epochs = 0;
  trainer.on_step([&](const train::StepEvent&) { ++steps; });
  trainer.on_epoch([&](const train::EpochRecord& e) {
    ++epochs;
    EXPECT_GT(e.samples_per_second, 0);
  });
  EXPECT_GT(trainer.fit(), 0.8);
  EXPECT_EQ(steps, 0);  // the workers' steps are not the Trainer's
  EXPECT_EQ(epochs, 3);
}

TEST(Trainer, AThreadedStrategyWithoutAWayToBuildReplicasIsNamed) {
  const exadnn::testing::ScratchDir dir("exadnn_train_");
  train::TrainConfig config = tiny_in(dir.path(), 1);
  config.model.clear();
  config.hogwild = {.enabled = true, .mode = "hogwild", .threads = 2, .accumulate = 1};
  train::TrainerParts parts;
  parts.model = std::make_shared<nn::Sequential>(std::initializer_list<std::shared_ptr<nn::Module>>{
      std::make_shared<nn::Flatten>(), std::make_shared<nn::Linear>(nn::LinearOptions(16, 3))});
  EXPECT_EXADNN_ERROR(train::Trainer(config, {}, std::move(parts)), "'hogwild'", "make_model");
}

}  // namespace
