// Training samples/s of the Fashion-MNIST MLP and CNN (configs/) in fp32 and bf16 (and fp16 on
// request), as `exadnn train --set precision=...` measures them (the same training driver),
// interleaved run by run so every precision samples the same machine load:
//
//   exadnn_precision_train_bench [rounds] [epochs] [threads] [configs dir] [fp16]
//
// Each round trains every model in fp32, then bf16 (then fp16 when the last argument is "fp16")
// for `epochs` epochs (default 3 rounds of 1 epoch) on `threads` threads (0 or default: the
// config's, 2) and reads the epoch rate (the median over epochs) from the metrics file. Prints
// each run with its test accuracy and the load average at its start, then the medians and their
// ratios to fp32 per model.
#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "exadnn/train/config.h"
#include "exadnn/train/trainer.h"

namespace {

std::string load_average() {
  std::ifstream in("/proc/loadavg");
  std::string one, five, fifteen;
  in >> one >> five >> fifteen;
  return one + " " + five + " " + fifteen;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n == 0 ? 0.0 : n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

// samples/s and test accuracy of one training run.
struct Run {
  double samples_per_second, accuracy;
};

Run train_once(const std::string& config_path, const std::string& precision, int epochs,
               int threads) {
  namespace train = exadnn::train;
  std::vector<std::string> overrides{"precision=" + precision, "epochs=" + std::to_string(epochs)};
  if (threads > 0) overrides.push_back("threads=" + std::to_string(threads));
  const train::TrainConfig config = train::load_config(config_path, overrides);
  const std::string metrics =
      (std::filesystem::temp_directory_path() / "exadnn_precision_train_bench.json").string();
  train::TrainOptions options;
  options.metrics_out = metrics;
  const double accuracy = train::Trainer(config, options).fit();
  std::ifstream in(metrics);
  const nlohmann::json j = nlohmann::json::parse(in);
  return {j.at("samples_per_second").get<double>(), accuracy};
}

}  // namespace

int main(int argc, char** argv) {
  const int rounds = argc > 1 ? std::atoi(argv[1]) : 3;
  const int epochs = argc > 2 ? std::atoi(argv[2]) : 1;
  const int threads = argc > 3 ? std::atoi(argv[3]) : 0;
  const std::string dir = argc > 4 ? argv[4] : "configs";
  const std::vector<std::string> models{"mlp", "cnn"};
  std::vector<std::string> precisions{"fp32", "bf16"};
  if (argc > 5 && std::string(argv[5]) == "fp16") precisions.push_back("fp16");
  std::vector<std::vector<std::vector<double>>> rates(
      models.size(), std::vector<std::vector<double>>(precisions.size()));
  for (int r = 0; r < rounds; ++r)
    for (size_t m = 0; m < models.size(); ++m)
      for (size_t p = 0; p < precisions.size(); ++p) {
        const std::string load = load_average();
        const Run run = train_once(dir + "/fashion_mnist_" + models[m] + ".yaml", precisions[p],
                                   epochs, threads);
        rates[m][p].push_back(run.samples_per_second);
        std::printf("round %d %s %s: %.0f samples/s, test accuracy %.4f (load %s)\n", r + 1,
                    models[m].c_str(), precisions[p].c_str(), run.samples_per_second, run.accuracy,
                    load.c_str());
        std::fflush(stdout);
      }
  std::printf("\nmedian samples/s over %d rounds of %d epoch(s)\n", rounds, epochs);
  for (size_t m = 0; m < models.size(); ++m) {
    const double fp32 = median(rates[m][0]);
    std::printf("%s: fp32 %.0f", models[m].c_str(), fp32);
    for (size_t p = 1; p < precisions.size(); ++p) {
      const double rate = median(rates[m][p]);
      std::printf(", %s %.0f (%.2fx)", precisions[p].c_str(), rate, rate / fp32);
    }
    std::printf("\n");
  }
  return 0;
}
