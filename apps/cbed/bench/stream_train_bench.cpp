// Training throughput from the out-of-core ShardStream (issue 18, "Scale"): a config whose data
// section streams the shards (data: {dataset: cbed-..., path: DIR, stream: {buffer_mb: N}}) is
// trained through the library's Trainer, as `exadnn train` does, and timed per window of one
// shard's worth of samples: samples/s of each window, the slowest window against the median one
// (a stall between shards shows there), the slowest step against the median step, and the
// process's peak RSS beside the training split's size and the loader's buffer.
//   exadnn_cbed_stream_train_bench CONFIG [--set key=value ...] [--window SAMPLES]
#include <sys/resource.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include <exadnn/train/trainer.h>

#include "cbed/loader.h"

namespace {

using Clock = std::chrono::steady_clock;

double peak_rss_mb() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return double(usage.ru_maxrss) / 1024.0;  // KiB on Linux
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0.0 : v[v.size() / 2];
}

int usage() {
  std::fprintf(stderr,
               "usage: exadnn_cbed_stream_train_bench CONFIG [--set k=v]... [--window N]\n");
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) return usage();
  std::vector<std::string> overrides;
  int64_t window = 0;  // samples per window; 0: the first training shard's samples
  for (int i = 2; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--set" && i + 1 < argc)
      overrides.push_back(argv[++i]);
    else if (a == "--window" && i + 1 < argc)
      window = std::atoll(argv[++i]);
    else
      return usage();
  }
  try {
    const exadnn::train::TrainConfig config = exadnn::train::load_config(argv[1], overrides);
    const cbed::shard::ShardSet train =
        cbed::shard::ShardSet::open_split(config.data.path, cbed::shard::Split::train);
    if (window <= 0) window = train.files().front().samples;
    const double sample_mb = 3.0 * train.height() * train.width() * sizeof(float) / 1e6;
    const double dataset_mb = double(train.size()) * sample_mb;
    const double buffer_mb = double(config.data.stream_buffer_mb << 20) / 1e6;

    exadnn::train::Trainer trainer(config);
    const double rss_before = peak_rss_mb();
    std::printf(
        "train split: %lld samples [3, %d, %d] in %zu shards, %.1f MB; loader buffer "
        "%.1f MB; window %lld samples; peak RSS before training %.1f MB\n",
        static_cast<long long>(train.size()), train.height(), train.width(), train.files().size(),
        dataset_mb, buffer_mb, static_cast<long long>(window), rss_before);
    std::vector<double> window_s, fill_s, step_s;
    int64_t in_window = 0;
    Clock::time_point window_start, last_step;
    bool first_window = true;
    int64_t windows_in_epoch = 0;
    trainer.on_epoch_start([&](int64_t, int64_t, int64_t) {
      window_start = last_step = Clock::now();
      in_window = 0;
      first_window = true;
      windows_in_epoch = 0;
    });
    trainer.on_step([&](const exadnn::train::StepEvent& s) {
      const Clock::time_point now = Clock::now();
      step_s.push_back(std::chrono::duration<double>(now - last_step).count());
      last_step = now;
      in_window += s.examples;
      if (in_window < window) return;
      const double t = std::chrono::duration<double>(now - window_start).count();
      std::printf("epoch %lld window %lld: %lld samples %.2f s %.1f samples/s%s\n",
                  static_cast<long long>(s.epoch), static_cast<long long>(++windows_in_epoch),
                  static_cast<long long>(in_window), t, double(in_window) / t,
                  first_window ? " (buffer filling)" : "");
      std::fflush(stdout);
      // Per `window` samples; an epoch's first window (the buffer's first fill) apart.
      (first_window ? fill_s : window_s).push_back(t / double(in_window) * double(window));
      window_start = now;
      in_window = 0;
      first_window = false;
    });
    trainer.on_epoch([&](const exadnn::train::EpochRecord& e) {
      std::printf("epoch %lld: loss %.4f test accuracy %.2f %% %.1f samples/s %.1f s\n",
                  static_cast<long long>(e.epoch), e.train_loss, 100.0 * e.test_accuracy,
                  e.samples_per_second, e.seconds);
      std::fflush(stdout);
    });
    trainer.fit();
    const double med = median(window_s);
    const double slowest =
        window_s.empty() ? 0 : *std::max_element(window_s.begin(), window_s.end());
    const double med_step = median(step_s);
    const double max_step = step_s.empty() ? 0 : *std::max_element(step_s.begin(), step_s.end());
    const double rss = peak_rss_mb();
    std::printf(
        "windows: %zu after each epoch's first, median %.1f samples/s, slowest %.1f "
        "samples/s, slowest / median window time %.2f; first windows (buffer filling) "
        "median %.1f samples/s\n",
        window_s.size(), med > 0 ? double(window) / med : 0.0,
        slowest > 0 ? double(window) / slowest : 0.0, med > 0 ? slowest / med : 0.0,
        fill_s.empty() ? 0.0 : double(window) / median(fill_s));
    std::printf("steps: %zu, median %.4f s, slowest %.4f s (%.2f x median)\n", step_s.size(),
                med_step, max_step, med_step > 0 ? max_step / med_step : 0.0);
    std::printf(
        "memory: train split %.1f MB = %.1f x the loader buffer (%.1f MB), %.2f x the "
        "peak RSS (%.1f MB)\n",
        dataset_mb, buffer_mb > 0 ? dataset_mb / buffer_mb : 0.0, buffer_mb, dataset_mb / rss, rss);
    return 0;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "%s\n", e.what());
    return 1;
  }
}
