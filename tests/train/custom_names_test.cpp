// Layers and losses registered from C++ under a name of the user's are usable from a YAML config
// like the built-in ones (issue 15), and every unknown name is one error listing the known ones.
#include "exadnn/data/idx.h"
#include "exadnn/exadnn.h"
#include "exadnn/train/config.h"
#include "exadnn/train/datasets.h"
#include "exadnn/train/layers.h"
#include "exadnn/train/losses.h"
#include "exadnn/train/optimizers.h"
#include "exadnn/train/schedulers.h"
#include "exadnn/train/strategies.h"
#include "exadnn/train/trainer.h"
#include "testing.h"
#include "tiny_idx.h"

using namespace exadnn;
using exadnn::fixtures::scratch;
namespace fs = std::filesystem;

namespace {

// y = x · gain with one learnable gain per feature: features [F] -> [F].
class FeatureGain : public nn::Module {
 public:
  FeatureGain(int64_t features, double init) : gain_(full({features}, init)) {
    gain_.requires_grad_();
    register_parameter("gain", &gain_);
  }
  Tensor forward(const Tensor& x) override { return x * gain_; }
  std::string name() const override { return "FeatureGain"; }

 private:
  Tensor gain_;
};

// Registered once per process (the tables live as long as the program).
void register_custom_names() {
  static const bool done = [] {
    train::layers().add(
        "feature_gain",
        {{{"init", train::LayerSetting::real(-10, 10)}},
         {},
         [](const train::LayerSettings& s, const Shape& in) -> std::shared_ptr<nn::Module> {
           if (in.size() != 1)
             throw Error("model",
                         detail::cat("receives examples of shape ", in, "; flatten first"));
           return std::make_shared<FeatureGain>(in[0], s.real("init", 1.0));
         },
         [](const train::LayerSettings&, const Shape& in) -> int64_t { return in[0]; }});
    // Cross entropy plus a small penalty on the logits' size.
    train::losses().add("damped_cross_entropy", [](const Tensor& out, const Tensor& target) {
      return nn::cross_entropy(out, target) + 1e-3 * mean(out * out);
    });
    return true;
  }();
  (void)done;
}

std::string tiny_yaml(const fs::path& dir, const std::string& model, const std::string& loss) {
  return "data: {dataset: idx, train_images: " + (dir / "train-images.idx").string() +
         ", train_labels: " + (dir / "train-labels.idx").string() +
         ", test_images: " + (dir / "test-images.idx").string() +
         ", test_labels: " + (dir / "test-labels.idx").string() + ", batch_size: 16}\n" +
         "model:\n" + model + "loss: " + loss +
         "\noptimizer: {name: sgd, lr: 0.1, momentum: 0.9}\nepochs: 4\nseed: 7\n";
}

}  // namespace

TEST(CustomNames, ALayerAndALossRegisteredFromCppTrainFromYaml) {
  register_custom_names();
  const fs::path dir = scratch();
  const train::TrainConfig c = train::parse_config(
      tiny_yaml(dir,
                "  - flatten\n  - feature_gain: {init: 0.5}\n  - linear: {out: 16}\n  - relu\n"
                "  - linear: {out: 3}\n",
                "damped_cross_entropy"),
      "custom.yaml");
  EXPECT_EQ(c.model[1].settings.real("init"), 0.5);
  EXPECT_GT(train::Trainer(c).fit(), 0.9);  // the 3 quadrant classes are learnt
  // The custom layer's settings are checked like the built-ins'.
  EXPECT_EXADNN_ERROR(
      train::parse_config(tiny_yaml(dir, "  - feature_gain: {init: 99, gain: 1}\n", "mse"),
                          "c.yaml"),
      "c.yaml:3: unknown key 'gain' in layer feature_gain (allowed: init)",
      "'layer feature_gain.init' must be a finite number from -10 to 10, got '99'");
  EXPECT_EXADNN_ERROR(train::layers().add("feature_gain", {}),
                      "'feature_gain' is registered already");
}

// A dataset kind of the user's: the tiny quadrant images of a folder, read as f32 pixels.
TEST(CustomNames, ADatasetRegisteredFromCppLoadsFromYaml) {
  static const bool registered = [] {
    const auto file = [](const train::DataSpec& d, bool train) {
      return (fs::path(d.path) / (train ? "train-images.idx" : "test-images.idx")).string();
    };
    train::datasets().add(
        "quadrants",
        {[](const train::DataSpec& d) { return d.path.empty() ? "needs 'path'" : ""; },
         [file](const train::DataSpec& d) -> train::TrainingData {
           const auto split = [&](bool train) {
             const std::string labels =
                 (fs::path(d.path) / (train ? "train-labels.idx" : "test-labels.idx")).string();
             return std::make_shared<data::TensorDataset>(
                 data::load_idx_dataset(file(d, train), labels, data::Pixels::f32));
           };
           return {split(true), split(false), nullptr};
         },
         file, file});
    return true;
  }();
  ASSERT_TRUE(registered);
  const fs::path dir = scratch();
  const train::TrainConfig c = train::parse_config(
      "data: {dataset: quadrants, path: " + dir.string() +
          ", batch_size: 16}\nmodel: [flatten, {linear: {out: 16}}, relu, {linear: {out: 3}}]\n"
          "epochs: 4\noptimizer: {name: sgd, lr: 0.1}\n",
      "q.yaml");
  EXPECT_EQ(train::load_training_data(c.data).train->size(), 192);
  EXPECT_GT(train::Trainer(c).fit(), 0.9);
  EXPECT_EXADNN_ERROR(train::parse_config("data: {dataset: hdf5}\nmodel: [flatten]\n", "h.yaml"),
                      "h.yaml:1: dataset 'hdf5' needs 'file'");
}

TEST(CustomNames, UnknownNamesListTheKnownOnesWithTheirLines) {
  const fs::path dir = scratch();
  const std::string yaml =
      tiny_yaml(dir, "  - flatten\n  - dense: {out: 3}\n", "hinge") + "distributed: {mode: ring}\n";
  EXPECT_EXADNN_ERROR(
      train::parse_config(
          yaml, "u.yaml",
          {"optimizer.name=lbfgs", "scheduler.name=linear", "data.dataset=imagenet"}),
      "6 problems",
      "u.yaml:9: 'distributed.mode' is 'ring' (known: allreduce, async_rma, hogwild, param_server, "
      "threads_locked, threads_sync;",
      "u.yaml:4: unknown layer 'dense' (allowed: ", "flatten, gelu",
      "'config.loss' is 'hinge' (allowed: ", "cross_entropy", "huber, l1, mse",
      "'optimizer.name' is 'lbfgs' (allowed: adagrad, adam, adamw, rmsprop, sgd)",
      "'data.dataset' is 'imagenet' (allowed: ", "csv, fashion-mnist, hdf5, idx, mnist",
      "'scheduler.name' is 'linear' (allowed: cosine, none, step)");
  EXPECT_EXADNN_ERROR(train::losses().at("hinge"), "unknown loss 'hinge' (known: ");
  EXPECT_EXADNN_ERROR(train::optimizers().at("lbfgs"), "unknown optimizer 'lbfgs' (known: ");
  EXPECT_EXADNN_ERROR(train::schedulers().at("linear"), "unknown scheduler 'linear' (known: ");
  EXPECT_EXADNN_ERROR(train::datasets().at("imagenet"), "unknown dataset 'imagenet' (known: ");
  EXPECT_EXADNN_ERROR(train::strategies().at("ring"), "unknown strategy 'ring' (known: ");
}
