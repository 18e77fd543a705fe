// Shared-memory asynchronous SGD: hogwild (lock-free), HogBatch (hogwild publishing every k
// steps), a mutex-guarded update and the synchronous baseline, training the Fashion-MNIST MLP
// (784-256-10, SGD lr 0.1, batch 32) with T threads of one OpenMP thread each. Prints per mode:
// samples/s, updates of the shared weights per second, final train loss, test accuracy after each
// epoch against wall time; writes a PNG of the training loss (mean of the last 100 batches) against
// seconds per mode.
//
//   exadnn_async_bench [THREADS=2] [EPOCHS=3] [PNG=async_bench.png]
//   [DIR=/usr/share/datasets/fashion-mnist]
//
// It prints; it does not judge (benchmarks never assert speed).
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "exadnn/exadnn.h"

using namespace exadnn;

namespace {

std::shared_ptr<nn::Module> make_mlp() {
  return std::make_shared<nn::Sequential>(std::initializer_list<std::shared_ptr<nn::Module>>{
      std::make_shared<nn::Linear>(784, 256), std::make_shared<nn::ReLU>(),
      std::make_shared<nn::Linear>(256, 10)});
}

Tensor loss_of(nn::Module& m, const data::Batch& b) {
  return nn::cross_entropy(m(b.inputs.flatten(1)), b.targets);
}

double accuracy(nn::Module& model, const data::DataLoader& test) {
  NoGradGuard no_grad;
  int64_t correct = 0, total = 0;
  const std::vector<int64_t> order = test.epoch_order(0);
  for (int64_t b = 0; b < test.batches_per_epoch(); ++b) {
    const data::Batch batch = test.build(b, 0, order);
    const Tensor predicted = argmax(model(batch.inputs.flatten(1)), 1);
    for (int64_t i = 0; i < batch.size(); ++i)
      correct += predicted.data<int64_t>()[i] == batch.targets.data<int64_t>()[i];
    total += batch.size();
  }
  return 100.0 * static_cast<double>(correct) / static_cast<double>(total);
}

struct Mode {
  std::string name;
  async::AsyncMode mode;
  int threads, accumulate;
};

}  // namespace

int main(int argc, char** argv) {
  const int threads = argc > 1 ? std::atoi(argv[1]) : 2;
  const int epochs = argc > 2 ? std::atoi(argv[2]) : 3;
  const std::string png = argc > 3 ? argv[3] : "async_bench.png";
  const std::string dir = argc > 4 ? argv[4] : "/usr/share/datasets/fashion-mnist";
  const data::DataLoader train(
      data::load_mnist(dir, data::Split::train),
      data::DataLoaderOptions().batch_size(32).shuffle(true).seed(1).prefetch(0));
  const data::DataLoader test(data::load_mnist(dir, data::Split::test),
                              data::DataLoaderOptions().batch_size(1000).prefetch(0));
  const std::string t = std::to_string(threads);
  const std::vector<Mode> modes = {
      {"serial (1 thread)", async::AsyncMode::hogwild, 1, 1},
      {"hogwild x" + t, async::AsyncMode::hogwild, threads, 1},
      {"hogbatch k=8 x" + t, async::AsyncMode::hogwild, threads, 8},
      {"locked x" + t, async::AsyncMode::locked, threads, 1},
      {"synchronous x" + t, async::AsyncMode::synchronous, threads, 1},
  };
  std::printf("Fashion-MNIST MLP 784-256-10, SGD lr 0.1, batch 32, %d epochs, %d threads\n", epochs,
              threads);
  std::printf("%-20s %10s %10s %10s %10s  %s\n", "mode", "samples/s", "updates/s", "seconds",
              "loss", "test accuracy % after each epoch (at seconds)");
  std::vector<io::Series> curves;
  for (const Mode& m : modes) {
    manual_seed(42);
    auto model = make_mlp();
    async::AsyncTrainer trainer(
        model, make_mlp,
        [](std::vector<Tensor> p) -> std::unique_ptr<optim::Optimizer> {
          return std::make_unique<optim::SGD>(std::move(p), optim::SGDOptions(0.1));
        },
        loss_of,
        async::AsyncOptions()
            .mode(m.mode)
            .threads(m.threads)
            .accumulate(m.accumulate)
            .intra_op_threads(1)
            .record_trace(true));
    io::Series curve{m.name, {}, {}};
    std::vector<double> window;
    double seconds = 0, loss = 0;
    int64_t samples = 0, updates = 0;
    std::string accuracies;
    for (int e = 0; e < epochs; ++e) {
      const async::EpochStats s = trainer.train_epoch(train, e);
      for (const async::TracePoint& p : s.trace) {
        window.push_back(p.loss);
        if (window.size() > 100) window.erase(window.begin());
        if (window.size() == 100) {
          double mean = 0;
          for (double v : window) mean += v / 100.0;
          curve.x.push_back(seconds + p.seconds);
          curve.y.push_back(mean);
        }
      }
      seconds += s.seconds;
      samples += s.samples;
      updates += s.updates;
      loss = s.loss;
      char buf[64];
      std::snprintf(buf, sizeof buf, " %.2f (%.1f s)", accuracy(*model, test), seconds);
      accuracies += buf;
    }
    std::printf("%-20s %10.0f %10.0f %10.2f %10.4f %s\n", m.name.c_str(),
                static_cast<double>(samples) / seconds, static_cast<double>(updates) / seconds,
                seconds, loss, accuracies.c_str());
    std::fflush(stdout);
    curves.push_back(std::move(curve));
  }
  io::write_series_plot(png, "train loss (mean of last 100 batches) vs seconds", "seconds", curves);
  std::printf("wrote %s\n", png.c_str());
  return 0;
}
