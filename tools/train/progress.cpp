#include "progress.h"

#include <unistd.h>

#include <cstdio>
#include <fstream>

namespace exadnn::cli {
namespace {

// This process's resident memory now (MB; 0 where /proc is missing): printed per epoch, so a run
// shows whether its memory stays flat.
double resident_mb() {
  std::ifstream statm("/proc/self/statm");
  long long pages = 0, resident = 0;
  if (!(statm >> pages >> resident)) return 0.0;
  return static_cast<double>(resident) * static_cast<double>(::sysconf(_SC_PAGESIZE)) / 1048576.0;
}

}  // namespace

void Progress::start_epoch(int64_t epoch, int64_t epochs, int64_t batches) {
  epoch_ = epoch;
  epochs_ = epochs;
  batches_ = batches;
  examples_ = 0;
  loss_sum_ = 0.0;
  loss_count_ = 0;
  start_ = last_draw_ = std::chrono::steady_clock::now();
}

void Progress::update(int64_t batch_index, int64_t examples, double loss) {
  examples_ += examples;
  loss_sum_ += loss;
  ++loss_count_;
  if (!interactive_) return;
  const auto now = std::chrono::steady_clock::now();
  const bool last = batch_index + 1 == batches_;
  if (!last && now - last_draw_ < std::chrono::milliseconds(200)) return;
  last_draw_ = now;
  const double seconds = std::chrono::duration<double>(now - start_).count();
  const double rate = seconds > 0 ? static_cast<double>(examples_) / seconds : 0.0;
  const double done = static_cast<double>(batch_index + 1) / static_cast<double>(batches_);
  const double eta = done > 0 ? seconds * (1.0 - done) / done : 0.0;
  constexpr int kWidth = 30;
  const int filled = static_cast<int>(done * kWidth);
  std::string bar(static_cast<size_t>(filled), '#');
  bar.resize(kWidth, '.');
  std::printf("\repoch %lld/%lld [%s] %3.0f%%  loss %.4f  %.0f samples/s  ETA %.0fs   ",
              static_cast<long long>(epoch_), static_cast<long long>(epochs_), bar.c_str(),
              100.0 * done, loss_sum_ / static_cast<double>(loss_count_), rate, eta);
  std::fflush(stdout);
}

void Progress::end_epoch(double train_loss, double test_accuracy, double samples_per_second,
                         double seconds) {
  if (silent_) return;
  if (interactive_) std::printf("\r%*s\r", 110, "");
  std::printf(
      "epoch %lld/%lld  train loss %.4f  test accuracy %.2f%%  %.0f samples/s  %.1f s  rss %.1f "
      "MB\n",
      static_cast<long long>(epoch_), static_cast<long long>(epochs_), train_loss,
      100.0 * test_accuracy, samples_per_second, seconds, resident_mb());
  std::fflush(stdout);
}

}  // namespace exadnn::cli
