// Training progress on the terminal: a live bar (samples/s, loss, ETA) when stdout is a terminal,
// plain per-epoch lines otherwise.
#pragma once

#include <chrono>
#include <cstdint>
#include <string>

namespace exadnn::cli {

class Progress {
 public:
  /// `interactive`: draw a live bar (else only end_epoch prints); `silent`: print nothing (the
  /// ranks of a distributed job other than the root).
  explicit Progress(bool interactive, bool silent = false)
      : interactive_(interactive && !silent), silent_(silent) {}
  void start_epoch(int64_t epoch, int64_t epochs, int64_t batches);
  /// After each batch: examples in it and its loss.
  void update(int64_t batch_index, int64_t examples, double loss);
  /// Prints the epoch summary line.
  void end_epoch(double train_loss, double test_accuracy, double samples_per_second,
                 double seconds);

 private:
  bool interactive_;
  bool silent_;
  int64_t epoch_ = 0, epochs_ = 0, batches_ = 0, examples_ = 0;
  double loss_sum_ = 0.0;
  int64_t loss_count_ = 0;
  std::chrono::steady_clock::time_point start_, last_draw_;
};

}  // namespace exadnn::cli
