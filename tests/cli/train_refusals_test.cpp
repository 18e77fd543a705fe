// The training driver refuses what would lose work or give a wrong answer with exit code 0
// (issue 14): a loss that becomes NaN, a last.ckpt it would overwrite, output paths it cannot
// write (found before the first step), empty or mismatched datasets, a model too large for the
// machine, and checkpoints whose fields are malformed although their checksum is valid.
#include <filesystem>
#include <fstream>

#include "exadnn/io/checkpoint.h"
#include "exadnn/train/config.h"
#include "exadnn/train/memory_budget.h"
#include "exadnn/train/resume_point.h"
#include "testing.h"
#include "tiny_idx.h"
#include "train_command.h"

using namespace exadnn;
namespace fs = std::filesystem;
using exadnn::fixtures::scratch;
using exadnn::fixtures::tiny_config;
using exadnn::fixtures::write_split;

TEST(TrainRefusals, ALossThatBecomesNanStopsTrainingNamingTheStep) {
  const fs::path dir = scratch();
  train::TrainConfig c = tiny_config(dir, 2);
  c.optimizer.lr = 1e30;
  train::TrainOptions opts;
  opts.checkpoint_dir = (dir / "nan").string();
  EXPECT_EXADNN_ERROR(cli::train(c, opts), "the loss became", "at epoch 1, step",
                      "the last finite loss was");
  EXPECT_FALSE(fs::exists(dir / "nan" / "last.ckpt"));  // nothing of the NaN run is saved
}

TEST(TrainRefusals, AnExistingCheckpointIsNotOverwrittenWithoutBeingAsked) {
  const fs::path dir = scratch();
  train::TrainOptions opts;
  opts.checkpoint_dir = (dir / "keep").string();
  cli::train(tiny_config(dir, 1), opts);
  const auto before = fs::last_write_time(dir / "keep" / "last.ckpt");
  EXPECT_EXADNN_ERROR(cli::train(tiny_config(dir, 1), opts), "last.ckpt already exists", "--resume",
                      "--overwrite");
  EXPECT_EQ(fs::last_write_time(dir / "keep" / "last.ckpt"), before);
  opts.overwrite = true;
  cli::train(tiny_config(dir, 1), opts);
  EXPECT_EQ(io::load_checkpoint((dir / "keep" / "last.ckpt").string()).metadata.at("epoch"), "1");
}

TEST(TrainRefusals, OutputPathsAreCheckedBeforeTheFirstStep) {
  const fs::path dir = scratch();
  train::TrainOptions opts;
  opts.checkpoint_dir = (dir / "unused").string();
  opts.metrics_out = (dir / "no_such_folder" / "metrics.json").string();
  EXPECT_EXADNN_ERROR(cli::train(tiny_config(dir, 1), opts), "--metrics-out", "no_such_folder",
                      "does not exist");
  EXPECT_FALSE(fs::exists(dir / "unused" / "last.ckpt"));  // refused before training
  opts.metrics_out.clear();
  opts.plot = dir.string();  // a folder
  EXPECT_EXADNN_ERROR(cli::train(tiny_config(dir, 1), opts), "--plot", "is a folder");
  opts.plot.clear();
  std::ofstream(dir / "a_file") << "x";
  opts.checkpoint_dir = (dir / "a_file" / "ckpt").string();
  EXPECT_EXADNN_ERROR(cli::train(tiny_config(dir, 1), opts), "--checkpoint-dir", "a_file");
}

TEST(TrainRefusals, EmptyAndMismatchedDatasetsAreNamed) {
  const fs::path dir = scratch();
  const fs::path empty = dir / "empty";
  fs::create_directories(empty);
  write_split(empty, "train", 0, 1);
  write_split(empty, "test", 10, 2);
  train::TrainConfig c = tiny_config(dir, 1);
  c.data.train_images = (empty / "train-images.idx").string();
  c.data.train_labels = (empty / "train-labels.idx").string();
  EXPECT_EXADNN_ERROR(train::load_training_data(c.data), "train-images.idx", "no examples");

  // A test set of 3x3 images against 4x4 training images.
  const fs::path small = dir / "small";
  fs::create_directories(small);
  std::ofstream images(small / "test-images.idx", std::ios::binary);
  const unsigned char header[] = {0, 0, 8, 3, 0, 0, 0, 1, 0, 0, 0, 3, 0, 0, 0, 3};
  images.write(reinterpret_cast<const char*>(header), sizeof header);
  images.write("\1\2\3\4\5\6\7\10\11", 9);
  images.close();
  c = tiny_config(dir, 1);
  c.data.test_images = (small / "test-images.idx").string();
  std::ofstream labels(small / "test-labels.idx", std::ios::binary);
  const unsigned char label_header[] = {0, 0, 8, 1, 0, 0, 0, 1, 0};
  labels.write(reinterpret_cast<const char*>(label_header), sizeof label_header);
  labels.close();
  c.data.test_labels = (small / "test-labels.idx").string();
  EXPECT_EXADNN_ERROR(train::load_training_data(c.data), "test examples have shape [1, 3, 3]",
                      "training examples [1, 4, 4]", "test-images.idx");
}

TEST(TrainRefusals, LabelsOutsideTheModelsClassesAreNamedBeforeTraining) {
  const fs::path dir = scratch();
  train::TrainConfig c = tiny_config(dir, 1);
  c.model.back().settings.set("out", 2);  // the data has 3 classes
  EXPECT_EXADNN_ERROR(cli::train(c, {}), "train-labels.idx", "has label 2",
                      "outside the 2 classes [0, 1]");
}

TEST(TrainRefusals, AModelThatCannotFitIsRefusedBeforeItIsAllocated) {
  const fs::path dir = scratch();
  train::TrainConfig c = tiny_config(dir, 1);
  c.model[1].settings.set("out", 3e6);  // 16 x 3e6 inputs, then 3e6 x 3: small weights...
  const train::LayerKind& linear = train::layers().at("linear");
  train::MemoryBudget roomy(16, 1, 64e9);
  EXPECT_NO_THROW(roomy.add_layer(c.model[1], linear.parameters(c.model[1].settings, {16}), 0));
  // ... but a 784 x 3e6 layer needs 2.35e9 parameters: ~28 GB with gradients and momentum.
  train::MemoryBudget tight(128, 1, 24e9);
  EXPECT_EXADNN_ERROR(tight.add_layer(c.model[1], linear.parameters(c.model[1].settings, {784}), 0),
                      "does not fit in memory", "layer linear (line 4)", "2355000000 parameters",
                      "24 GB are available");
  EXPECT_GT(train::available_memory_bytes(), 0.0);
}

// Ranks on one node share its memory: each is budgeted its share. parallel.spatial: a rank holds
// a band (1/S) of every feature map before the flatten or global_avgpool, the rest whole.
TEST(TrainRefusals, TheMemoryEstimateCountsThisRanksShareAndItsBandOfEachImage) {
  auto layer = [](const char* kind, int line) {
    train::LayerSpec spec;
    spec.kind = kind;
    spec.line = line;
    return spec;
  };
  // One example: a conv2d's 1e6 values, then a flatten of them, then a linear's 10; batch 100;
  // f32 activations and their gradients: 8 bytes per value and example.
  auto estimate = [&](train::MemoryBudget& b) {
    b.add_layer(layer("conv2d", 3), 0, 1000000);
    b.add_layer(layer("flatten", 4), 0, 1000000);
    b.add_layer(layer("linear", 5), 0, 10);
    return b.total_bytes();
  };
  train::MemoryBudget whole(100, 0, 0);
  EXPECT_DOUBLE_EQ(estimate(whole), 8.0 * 100 * 2000010);
  train::MemoryBudget banded(100, 0, 0);
  banded.split_images(4);
  EXPECT_DOUBLE_EQ(estimate(banded), 8.0 * 100 * (250000 + 1000010));
  EXPECT_NE(banded.describe().find("1/4 of the feature maps before the flatten"), std::string::npos)
      << banded.describe();
  train::MemoryBudget pooled(100, 0, 0);  // a global_avgpool ends the bands too
  pooled.split_images(4);
  pooled.add_layer(layer("conv2d", 3), 0, 1000000);
  pooled.add_layer(layer("global_avgpool", 4), 0, 16);
  EXPECT_DOUBLE_EQ(pooled.total_bytes(), 8.0 * 100 * (250000 + 16));
  // 1.6 GB for the whole image fits in 4.4 GB alone, not in a quarter of it (past the flatten).
  train::MemoryBudget alone(100, 0, 4.4e9);
  EXPECT_NO_THROW(estimate(alone));
  train::MemoryBudget shared(100, 0, 4.4e9, 4);
  EXPECT_EXADNN_ERROR(estimate(shared), "does not fit in memory", "layer flatten (line 4)",
                      "1.1 GB are available (this process's share: 1/4 of the 4.4 GB available to "
                      "the 4 processes on this node)");
  train::MemoryBudget shared_banded(100, 0, 4.4e9, 4);  // 0.2 + 0.8 GB: fits in the share
  shared_banded.split_images(4);
  EXPECT_NO_THROW(estimate(shared_banded));
}

namespace {
// The checkpoint of a 1-epoch run with one field replaced; saved again, so its checksum is valid.
std::string tampered(const fs::path& dir, const std::string& name,
                     const std::function<void(io::Checkpoint&)>& change) {
  train::TrainOptions opts;
  opts.checkpoint_dir = (dir / name).string();
  cli::train(tiny_config(dir, 1), opts);
  const std::string path = opts.checkpoint_dir + "/last.ckpt";
  io::Checkpoint ckpt = io::load_checkpoint(path);
  change(ckpt);
  io::save_checkpoint(path, ckpt.tensors, ckpt.metadata);
  return opts.checkpoint_dir;
}

void expect_resume_refused(const fs::path& dir, const std::string& ckpt_dir,
                           const std::vector<std::string>& fragments) {
  train::TrainOptions opts;
  opts.checkpoint_dir = ckpt_dir;
  opts.resume = true;
  try {
    cli::train(tiny_config(dir, 2), opts);
    ADD_FAILURE() << "resume from " << ckpt_dir << " was accepted";
  } catch (const Error& e) {
    for (const std::string& f : fragments)
      EXPECT_NE(std::string(e.what()).find(f), std::string::npos) << e.what() << " lacks " << f;
  }
}
}  // namespace

TEST(TrainRefusals, MalformedResumeFieldsAreNamed) {
  const fs::path dir = scratch();
  expect_resume_refused(
      dir,
      tampered(dir, "rng0",
               [](io::Checkpoint& c) { c.tensors.set("rng", zeros({0}, DType::i64)); }),
      {"last.ckpt", "field 'rng' must be i64 [2], got i64 [0]"});
  expect_resume_refused(
      dir,
      tampered(dir, "rng1",
               [](io::Checkpoint& c) { c.tensors.set("rng", zeros({1}, DType::i64)); }),
      {"field 'rng' must be i64 [2], got i64 [1]"});
  expect_resume_refused(
      dir, tampered(dir, "epoch", [](io::Checkpoint& c) { c.metadata["epoch"] = "one"; }),
      {"metadata field 'epoch' = 'one' is not an integer"});
  expect_resume_refused(
      dir, tampered(dir, "noepoch", [](io::Checkpoint& c) { c.metadata.erase("epoch"); }),
      {"metadata field 'epoch' is missing"});
  expect_resume_refused(
      dir, tampered(dir, "history", [](io::Checkpoint& c) { c.metadata["history"] = "[[1, 2"; }),
      {"metadata field 'history' is not valid JSON"});
  expect_resume_refused(
      dir,
      tampered(dir, "history2", [](io::Checkpoint& c) { c.metadata["history"] = "[[1, \"x\"]]"; }),
      {"metadata field 'history': row 0 must be an array of 5 numbers"});
  expect_resume_refused(dir,
                        tampered(dir, "lr",
                                 [](io::Checkpoint& c) {
                                   c.tensors.set("optimizer.lr", scalar_tensor(1, DType::i64));
                                 }),
                        {"optimizer state does not fit", "'lr' must be a 0-d f64 tensor"});
}
