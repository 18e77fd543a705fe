// Matmul precisions: the accuracy table of docs/precision.md and GEMM GFLOP/s.
//
//   exadnn_precision_bench [accuracy|speed|all] [threads]
//
// accuracy: relative Frobenius error against the f64 product of the same f32 inputs (uniform
//           [-1, 1]), n = 64 ... 1024, for every matmul precision (precision/accuracy.h).
// speed:    n x n x n GFLOP/s (2n^3 / the best wall time of 9 runs after a warm-up: on a shared
//           machine other jobs only ever slow a run down, so the best run is the one to trust) for
//           f32 tensors at each matmul precision, and for bf16 / f16 tensors (16-bit in and out),
//           n = 512, 1024, 2048, on `threads` threads (default 2). The output tensor is allocated
//           in each run by exadnn's caching allocator, as a user pays for it.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <string>
#include <vector>

#include "exadnn/exadnn.h"
#include "exadnn/precision/accuracy.h"

using namespace exadnn;

namespace {

constexpr MatmulPrecision kPrecisions[] = {MatmulPrecision::fp32, MatmulPrecision::bf16,
                                           MatmulPrecision::fp16, MatmulPrecision::split_fp16,
                                           MatmulPrecision::split_bf16};

void accuracy_table() {
  std::printf("| n |");
  for (MatmulPrecision p : kPrecisions) std::printf(" %s |", matmul_precision_name(p));
  std::printf("\n| ---: |");
  for (size_t i = 0; i < std::size(kPrecisions); ++i) std::printf(" ---: |");
  std::printf("\n");
  for (int64_t n : {64, 128, 256, 512, 1024}) {
    std::printf("| %lld |", static_cast<long long>(n));
    for (MatmulPrecision p : kPrecisions)
      std::printf(" %.2e |", precision::matmul_relative_error(n, p));
    std::printf("\n");
  }
}

// GFLOP/s of each run() for n x n x n: the runs are interleaved round by round (so every variant
// samples the same load on a shared machine) and each keeps its best time.
std::vector<double> gflops(int64_t n, const std::vector<std::function<void()>>& runs, int rounds) {
  std::vector<double> best(runs.size(), 1e30);
  for (const auto& run : runs) run();  // warm-up: primitive creation, allocator cache
  for (int r = 0; r < rounds; ++r)
    for (size_t i = 0; i < runs.size(); ++i) {
      const auto t0 = std::chrono::steady_clock::now();
      runs[i]();
      best[i] = std::min(
          best[i], std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
    }
  const double flops =
      2.0 * static_cast<double>(n) * static_cast<double>(n) * static_cast<double>(n);
  for (double& b : best) b = flops / b / 1e9;
  return best;
}

void speed_table() {
  std::printf("| n |");
  for (MatmulPrecision p : kPrecisions) std::printf(" f32 @ %s |", matmul_precision_name(p));
  std::printf(" bf16 tensors | f16 tensors |\n| ---: |");
  for (size_t i = 0; i < std::size(kPrecisions) + 2; ++i) std::printf(" ---: |");
  std::printf("\n");
  for (int64_t n : {512, 1024, 2048}) {
    Generator gen(1);
    const Tensor a = rand({n, n}, {}, &gen), b = rand({n, n}, {}, &gen);
    const Tensor a_bf16 = a.to(DType::bf16), b_bf16 = b.to(DType::bf16);
    const Tensor a_f16 = a.to(DType::f16), b_f16 = b.to(DType::f16);
    std::vector<std::function<void()>> runs;
    for (MatmulPrecision p : kPrecisions) runs.push_back([&, p] { matmul(a, b, p); });
    runs.push_back([&] { matmul(a_bf16, b_bf16); });
    runs.push_back([&] { matmul(a_f16, b_f16); });
    std::printf("| %lld |", static_cast<long long>(n));
    for (double g : gflops(n, runs, n <= 1024 ? 40 : 12)) std::printf(" %.1f |", g);
    std::printf("\n");
    std::fflush(stdout);
  }
}

}  // namespace

int main(int argc, char** argv) {
  const std::string what = argc > 1 ? argv[1] : "all";
  const int threads = argc > 2 ? std::atoi(argv[2]) : 2;
  set_num_threads(threads);
  std::printf("exadnn %s, %d threads, f16/bf16 conversions: %s\n\n", version(), threads,
              half_isa_name(half_isa()));
  if (what == "accuracy" || what == "all") {
    std::printf("relative Frobenius error vs f64 (uniform [-1, 1] inputs)\n\n");
    accuracy_table();
    std::printf("\n");
  }
  if (what == "speed" || what == "all") {
    std::printf("GFLOP/s, n x n x n\n\n");
    speed_table();
  }
  return 0;
}
