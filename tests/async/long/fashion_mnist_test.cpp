// Fashion-MNIST MLP (784-256-10), 3 epochs: two hogwild threads reach a test accuracy no more
// than 1 point below two synchronous threads. Minutes, not seconds: label "long".
#include <gtest/gtest.h>

#include <cstdio>
#include <numeric>

#include "../async_testing.h"

namespace exadnn {
namespace {

const char* const kDir = "/usr/share/datasets/fashion-mnist";

// Percent of the test set whose arg-max logit is the label (one batch of 10000).
double test_accuracy(nn::Module& model, const data::Dataset& test) {
  NoGradGuard no_grad;
  std::vector<int64_t> all(static_cast<size_t>(test.size()));
  std::iota(all.begin(), all.end(), int64_t{0});
  const data::Batch b = test.get_batch(all);
  const Tensor hits = eq(argmax(model(b.inputs.flatten(1)), 1), b.targets).to(DType::f64);
  return 100.0 * sum(hits).item<double>() / static_cast<double>(test.size());
}

double train_3_epochs(async::AsyncMode mode, const data::DataLoader& train,
                      const data::Dataset& test) {
  manual_seed(42);
  const auto make = [] { return testing::make_mlp(784, 256, 10); };
  auto model = make();
  async::AsyncTrainer trainer(
      model, make, testing::sgd_factory(optim::SGDOptions(0.1)),
      [](nn::Module& m, const data::Batch& b) {
        return nn::cross_entropy(m(b.inputs.flatten(1)), b.targets);
      },
      async::AsyncOptions().mode(mode).threads(2));
  for (int64_t e = 0; e < 3; ++e) {
    const async::EpochStats s = trainer.train_epoch(train, e);
    std::printf("%s epoch %ld: loss %.4f, %.1f s, test accuracy %.2f%%\n",
                async::async_mode_name(mode), static_cast<long>(e), s.loss, s.seconds,
                test_accuracy(*model, test));
  }
  return test_accuracy(*model, test);
}

TEST(FashionMnist, HogwildWithinOnePointOfSynchronous) {
  const auto opts = data::DataLoaderOptions().batch_size(64).shuffle(true).seed(1).prefetch(0);
  const data::DataLoader train(data::load_mnist(kDir, data::Split::train), opts);
  const data::TensorDataset test = data::load_mnist(kDir, data::Split::test);
  const double sync = train_3_epochs(async::AsyncMode::synchronous, train, test);
  const double hogwild = train_3_epochs(async::AsyncMode::hogwild, train, test);
  EXPECT_GE(hogwild, sync - 1.0) << "hogwild " << hogwild << "%, synchronous " << sync << "%";
  RecordProperty("synchronous_accuracy", std::to_string(sync));
  RecordProperty("hogwild_accuracy", std::to_string(hogwild));
}

}  // namespace
}  // namespace exadnn
