// The training driver end to end on a tiny synthetic IDX dataset: it learns, writes metrics and
// plots, and resuming from a checkpoint continues bit-identically.
#include <filesystem>
#include <fstream>
#include <functional>
#include <nlohmann/json.hpp>
#include <utility>

#include "exadnn/core/profiler.h"
#include "exadnn/data/idx.h"
#include "exadnn/io/checkpoint.h"
#include "exadnn/train/config.h"
#include "testing.h"
#include "tiny_idx.h"
#include "train_command.h"

using namespace exadnn;
namespace fs = std::filesystem;
using exadnn::fixtures::scratch;
using exadnn::fixtures::tiny_config;

namespace {

// Trains `epochs` epochs straight and as 1 epoch + --resume + the rest, under checkpoint folders
// named after `name`; returns the two final checkpoints.
std::pair<io::Checkpoint, io::Checkpoint> straight_and_resumed(
    const fs::path& dir, const std::string& name, int epochs,
    const std::function<void(train::TrainConfig&)>& adjust = {}) {
  const auto config = [&](int e) {
    train::TrainConfig c = tiny_config(dir, e);
    if (adjust) adjust(c);
    return c;
  };
  train::TrainOptions straight, split;
  straight.checkpoint_dir = (dir / (name + "_straight")).string();
  split.checkpoint_dir = (dir / (name + "_split")).string();
  cli::train(config(epochs), straight);
  cli::train(config(1), split);
  split.resume = true;
  cli::train(config(epochs), split);
  return {io::load_checkpoint(straight.checkpoint_dir + "/last.ckpt"),
          io::load_checkpoint(split.checkpoint_dir + "/last.ckpt")};
}

void expect_same_tensors(const io::Checkpoint& a, const io::Checkpoint& b) {
  ASSERT_EQ(a.tensors.size(), b.tensors.size());
  for (const auto& [name, t] : a.tensors)
    EXPECT_EQ(exadnn::testing::values(t), exadnn::testing::values(b.tensors.at(name))) << name;
}

}  // namespace

TEST(Train, LearnsAndWritesMetricsAndPlot) {
  const fs::path dir = scratch();
  train::TrainOptions opts;
  opts.metrics_out = (dir / "metrics.json").string();
  opts.plot = (dir / "plot.png").string();
  const double acc = cli::train(tiny_config(dir, 4), opts);
  EXPECT_GT(acc, 0.9);
  std::ifstream metrics(opts.metrics_out);
  const std::string text((std::istreambuf_iterator<char>(metrics)),
                         std::istreambuf_iterator<char>());
  for (const char* key : {"\"test_accuracy\"", "\"samples_per_second\"", "\"epochs\"",
                          "\"train_loss\"", "\"threads\"", "\"ranks\"", "\"peak_rss_mb\""})
    EXPECT_NE(text.find(key), std::string::npos) << key;
  std::ifstream png(opts.plot, std::ios::binary);
  char magic[8] = {};
  png.read(magic, 8);
  EXPECT_EQ(std::string(magic + 1, 3), "PNG");
}

TEST(Train, IdxImagesStayU8AndBecomeTheF32PixelsPerBatch) {
  const fs::path dir = scratch();
  const train::TrainConfig config = tiny_config(dir, 1);
  const train::TrainingData data = train::load_training_data(config.data);
  ASSERT_EQ(data.train->input_dtype(), DType::u8);
  ASSERT_EQ(data.test->input_dtype(), DType::u8);
  ASSERT_NE(data.transform, nullptr);
  const auto& u8 = dynamic_cast<const data::TensorDataset&>(*data.test);
  Generator unused;
  const Tensor converted = data.transform->apply(u8.inputs(), unused);
  const data::TensorDataset f32 =
      data::load_idx_dataset(config.data.test_images, config.data.test_labels, data::Pixels::f32);
  ASSERT_EQ(converted.dtype(), DType::f32);
  EXPECT_EQ(exadnn::testing::values(converted), exadnn::testing::values(f32.inputs()));
}

TEST(Train, ResumeContinuesBitIdentically) {
  const fs::path dir = scratch();
  const auto [a, b] = straight_and_resumed(dir, "fp32", 2);
  expect_same_tensors(a, b);
  EXPECT_EQ(a.metadata.at("epoch"), "2");
  EXPECT_DOUBLE_EQ(cli::evaluate_checkpoint((dir / "fp32_split" / "last.ckpt").string()),
                   cli::evaluate_checkpoint((dir / "fp32_straight" / "last.ckpt").string()));
}

// exadnn eval --metrics-out: a checkpoint's per-class figures and confusion matrix, its classes
// named as the run's config named them; the same top-1 as the plain score.
TEST(Train, EvalWritesPerClassMetricsOfACheckpointNamedAsItsRun) {
  const fs::path dir = scratch();
  std::string yaml = tiny_config(dir, 2).source;
  const std::string data_end = ", batch_size: 16}";
  ASSERT_NE(yaml.find(data_end), std::string::npos);
  yaml.replace(yaml.find(data_end), data_end.size(),
               ", batch_size: 16, class_names: [first, second, third]}");
  train::TrainOptions options;
  options.checkpoint_dir = (dir / "named").string();
  cli::train(train::parse_config(yaml, "named.yaml"), options);
  const std::string ckpt = options.checkpoint_dir + "/best.ckpt";
  // Scoring reads the test labels only: a training label outside the classes, which a training
  // run refuses, does not stop an evaluation.
  {
    std::fstream labels(dir / "train-labels.idx", std::ios::binary | std::ios::in | std::ios::out);
    labels.seekp(8);  // past the magic number and the count: example 0's label
    labels.put(static_cast<char>(7));
  }
  const std::string metrics = (dir / "eval.json").string();
  const double accuracy = cli::evaluate_checkpoint(ckpt, 1000, metrics);
  EXPECT_DOUBLE_EQ(accuracy, cli::evaluate_checkpoint(ckpt));
  std::ifstream in(metrics);
  const nlohmann::json j = nlohmann::json::parse(in);
  EXPECT_DOUBLE_EQ(j["test_accuracy"].get<double>(), accuracy);
  EXPECT_TRUE(j["epochs"].empty());
  const nlohmann::json& classes = j["classes"];
  EXPECT_DOUBLE_EQ(classes["top1_accuracy"].get<double>(), accuracy);
  EXPECT_EQ(classes["examples"], 60);
  ASSERT_EQ(classes["per_class"].size(), 3u);
  EXPECT_EQ(classes["per_class"][1]["name"], "second");
  EXPECT_TRUE(fs::exists(dir / "eval.confusion.png"));
  // An unwritable metrics path is refused before the evaluation, naming it.
  EXPECT_EXADNN_ERROR(cli::evaluate_checkpoint(ckpt, 1000, (dir / "no" / "m.json").string()),
                      "--metrics-out", "m.json");
}

TEST(Train, TheScheduleSetsEachEpochsRateAndResumesWhereItWas) {
  const fs::path dir = scratch();
  const auto halving = [](train::TrainConfig& c) {
    c.scheduler.name = "step";
    c.scheduler.gamma = 0.5;
  };
  const auto [a, b] = straight_and_resumed(dir, "step", 3, halving);
  expect_same_tensors(a, b);
  // lr 0.1 halved after each of the 3 epochs; the checkpoint holds the rate of a 4th.
  EXPECT_EQ(a.tensors.at("optimizer.lr").item_double(), 0.1 * 0.5 * 0.5 * 0.5);
  EXPECT_EQ(a.tensors.at("scheduler.last_epoch").item<int64_t>(), 3);
  // The schedule changes the training: the unscheduled run ends elsewhere.
  train::TrainOptions constant;
  constant.checkpoint_dir = (dir / "constant").string();
  cli::train(tiny_config(dir, 3), constant);
  const io::Checkpoint c = io::load_checkpoint(constant.checkpoint_dir + "/last.ckpt");
  EXPECT_NE(exadnn::testing::values(c.tensors.at("model.1.weight")),
            exadnn::testing::values(a.tensors.at("model.1.weight")));
  // A checkpoint written without a schedule cannot resume a scheduled run.
  train::TrainConfig scheduled = tiny_config(dir, 4);
  halving(scheduled);
  constant.resume = true;
  EXPECT_EXADNN_ERROR(cli::train(scheduled, constant), "last.ckpt",
                      "holds no learning-rate schedule", "'step'");
}

TEST(Train, CheckpointOfAnotherModelIsRefused) {
  const fs::path dir = scratch();
  train::TrainOptions opts;
  opts.checkpoint_dir = (dir / "other").string();
  cli::train(tiny_config(dir, 1), opts);
  train::TrainConfig wider = tiny_config(dir, 2);
  wider.model[1].settings.set("out", 32);
  opts.resume = true;
  EXPECT_EXADNN_ERROR(cli::train(wider, opts), "last.ckpt", "field 'model.1.weight'", "[32, 16]");
}

TEST(Train, CheckpointOfAnotherOptimizerIsRefusedNamingTheFile) {
  const fs::path dir = scratch();
  train::TrainOptions opts;
  opts.checkpoint_dir = (dir / "sgd").string();
  cli::train(tiny_config(dir, 1), opts);  // SGD with momentum
  train::TrainConfig adam = tiny_config(dir, 2);
  adam.optimizer.name = "adam";
  opts.resume = true;
  EXPECT_EXADNN_ERROR(cli::train(adam, opts), "last.ckpt", "optimizer state does not fit", "adam",
                      "momentum_buffer");
}

TEST(Train, Bf16AndFp16LearnAndFp16ResumesItsLossScale) {
  const fs::path dir = scratch();
  const double fp32 = cli::train(tiny_config(dir, 4), {});
  for (const char* precision : {"bf16", "fp16"}) {
    train::TrainConfig c = tiny_config(dir, 4);
    c.precision = precision;
    EXPECT_GE(cli::train(c, {}), fp32 - 0.05) << precision << " (60 test examples: 3 of them)";
  }
  // fp16 checkpoints carry the GradScaler state; 2 epochs straight = 1 + resume + 1.
  const auto [a, b] =
      straight_and_resumed(dir, "fp16", 2, [](train::TrainConfig& c) { c.precision = "fp16"; });
  ASSERT_TRUE(a.tensors.contains("scaler.scale"));
  expect_same_tensors(a, b);
}

TEST(Train, ProfilePrintsEachLayersShareOfTheStepAndLeavesTheProfilerOff) {
  const fs::path dir = scratch();
  train::TrainOptions opts;
  opts.profile = true;
  ::testing::internal::CaptureStdout();
  cli::train(tiny_config(dir, 1), opts);
  const std::string out = ::testing::internal::GetCapturedStdout();
  EXPECT_NE(out.find("profile: "), std::string::npos) << out;
  EXPECT_NE(out.find("ms per step (wall)"), std::string::npos) << out;
  EXPECT_NE(out.find("1 Linear"), std::string::npos) << out;  // after tiny_config's flatten
  EXPECT_NE(out.find("(optimizer)"), std::string::npos) << out;
  EXPECT_NE(out.find("(data: waiting for the next batch)"), std::string::npos) << out;
  EXPECT_NE(out.find("page faults: "), std::string::npos) << out;
  EXPECT_FALSE(profiler::enabled());  // a later run in the same process is not profiled
}
