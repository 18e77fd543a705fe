// The Fashion-MNIST MLP and CNN of configs/, 3 epochs each in fp32, bf16 and fp16 (fp16 with the
// dynamic loss scaler): the 16-bit runs reach a test accuracy no more than 0.5 points below fp32
// (issue 6). Minutes, not seconds: label "long".
#include <gtest/gtest.h>

#include <cstdio>
#include <string>

#include "exadnn/train/config.h"
#include "exadnn/train/trainer.h"

namespace exadnn {
namespace {

// Final test accuracy (percent) of `config_file` trained in `precision` for 3 epochs.
double accuracy_after_3_epochs(const std::string& config_file, const std::string& precision) {
  train::TrainConfig config = train::load_config(std::string(EXADNN_CONFIG_DIR) + "/" + config_file,
                                                 {"epochs=3", "precision=" + precision});
  const double accuracy = 100.0 * train::Trainer(config).fit();  // fit() returns a fraction
  std::printf("%s in %s: %.2f %%\n", config_file.c_str(), precision.c_str(), accuracy);
  return accuracy;
}

class SixteenBitTraining : public ::testing::TestWithParam<const char*> {};

TEST_P(SixteenBitTraining, WithinHalfAPointOfFp32) {
  const double fp32 = accuracy_after_3_epochs(GetParam(), "fp32");
  for (const char* precision : {"bf16", "fp16"}) {
    const double accuracy = accuracy_after_3_epochs(GetParam(), precision);
    EXPECT_GE(accuracy, fp32 - 0.5)
        << GetParam() << " in " << precision << ": " << accuracy << " %, fp32: " << fp32 << " %";
    RecordProperty(precision, std::to_string(accuracy));
  }
  RecordProperty("fp32", std::to_string(fp32));
}

INSTANTIATE_TEST_SUITE_P(FashionMnist, SixteenBitTraining,
                         ::testing::Values("fashion_mnist_mlp.yaml", "fashion_mnist_cnn.yaml"),
                         [](const auto& info) {
                           return std::string(info.param).find("cnn") != std::string::npos
                                      ? std::string("cnn")
                                      : std::string("mlp");
                         });

}  // namespace
}  // namespace exadnn
