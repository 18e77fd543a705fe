// Multislice speed on one core: CBED patterns per second for Cu [001] (0.34 A pixels, 20 cells =
// 7.2 nm, 40 slices) on 64^2..512^2 grids, the set-up's time (potentials, transmission functions,
// FFTW_MEASURE plans), and the FFT's share: the same 2 x 40 transforms run alone on a plan of the
// same size. Each time is the fastest of several runs, which a busy machine disturbs least.
//   build/apps/cbed/exadnn_cbed_bench [max_grid]
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>

#include "cbed/fft2d.h"
#include "cbed/multislice.h"
#include "cbed/orthogonal_cell.h"

namespace {
double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}
}  // namespace

int main(int argc, char** argv) {
  using namespace cbed;
  const int max_grid = argc > 1 ? std::atoi(argv[1]) : 512;
  const Crystal cu = along_axis(make_fcc(29, 3.615), 2);
  std::printf("%6s %10s %12s %12s %10s %12s\n", "grid", "setup_s", "pattern_ms", "patterns/s",
              "fft_ms", "fft_share");
  for (int n = 64; n <= max_grid; n *= 2) {
    MultisliceOptions o;
    o.grid.nx = o.grid.ny = n;
    o.grid.tiles_x = o.grid.tiles_y = 6 * n / 64;
    o.grid.slices_per_cell = 2;
    o.cells = 20;
    o.aperture_mrad = 5;
    auto t0 = std::chrono::steady_clock::now();
    Multislice ms(cu, o);
    const double setup = seconds_since(t0);
    ms.pattern();  // warm caches
    const int repeats = n <= 128 ? 50 : (n <= 256 ? 10 : 5);
    double per_pattern = 1e30;
    for (int r = 0; r < repeats; ++r) {
      t0 = std::chrono::steady_clock::now();
      ms.pattern();
      per_pattern = std::min(per_pattern, seconds_since(t0));
    }
    // FFTW alone: the 2 transforms per slice of one pattern, on a plan of the same size and flags.
    Fft2d fft(n, n, true);
    const int transforms = 2 * o.grid.slices_per_cell * o.cells;
    double fft_time = 1e30;
    for (int r = 0; r < repeats; ++r) {
      t0 = std::chrono::steady_clock::now();
      for (int t = 0; t < transforms / 2; ++t) fft.forward(), fft.inverse();
      fft_time = std::min(fft_time, seconds_since(t0));
    }
    std::printf("%6d %10.3f %12.3f %12.1f %10.3f %11.0f%%\n", n, setup, 1e3 * per_pattern,
                1 / per_pattern, 1e3 * fft_time, 100 * fft_time / per_pattern);
  }
  return 0;
}
