// Compression speed: compression and decompression throughput (MB/s of raw f64 field) of the
// blockwise DCT (q bits, and a uniform step) and of ZFP (fixed rate, fixed accuracy) at 4:1,
// 16:1 and 64:1 on Galewsky's initial height at (Ne, p), against
// FFTW's raw transform of the same B × B blocks (BlockDct::raw_forward: copy into the aligned
// block and execute the plan; no scaling, no quantisation). Each figure is the median of `runs`
// timed runs of at least 0.2 s of this thread's CPU time each (the per-core rate, also when
// other work shares the machine). One thread.
// Usage: exadnn_climate_compress_bench [Ne] [p] [runs]
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <functional>
#include <memory>
#include <vector>

#include "climate/compress_fields.h"
#include "climate/dct_compressor.h"
#include "climate/galewsky.h"
#include "climate/zfp_compressor.h"
#include "exadnn/core/error.h"

namespace {

double thread_cpu_seconds() {
  timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return ts.tv_sec + 1e-9 * ts.tv_nsec;
}

// The median over `runs` of the rate (bytes per CPU second) at which `work` processes `bytes`,
// each run repeating it for at least 0.2 s of CPU time.
double median_rate(int runs, double bytes, const std::function<void()>& work) {
  std::vector<double> rates;
  for (int r = 0; r < runs; ++r) {
    const double start = thread_cpu_seconds();
    long reps = 0;
    double seconds = 0;
    do {
      work();
      ++reps;
      seconds = thread_cpu_seconds() - start;
    } while (seconds < 0.2);
    rates.push_back(bytes * reps / seconds);
  }
  std::sort(rates.begin(), rates.end());
  return rates[rates.size() / 2];
}

// The field's B × B blocks, gathered into one contiguous array [blocks][B][B].
std::vector<double> gather_blocks(const climate::FaceField& f, int b) {
  std::vector<double> out;
  const int nb = f.n / b;
  for (int face = 0; face < 6; ++face)
    for (int br = 0; br < nb; ++br)
      for (int bc = 0; bc < nb; ++bc)
        for (int j = 0; j < b; ++j)
          for (int i = 0; i < b; ++i) out.push_back(f.at(face, br * b + j, bc * b + i));
  return out;
}

}  // namespace

int main(int argc, char** argv) {
  using namespace climate;
  const int ne = argc > 1 ? std::atoi(argv[1]) : 32;
  const int p = argc > 2 ? std::atoi(argv[2]) : 4;
  const int runs = argc > 3 ? std::atoi(argv[3]) : 7;
  const CubedSphere mesh(ne, p);
  const Galewsky tc(true);
  const ShallowWater solver(mesh, tc.params());
  const FaceField h = gather_face_field(solver, tc.state(solver), 0);
  const double mb = h.raw_bytes() / 1e6;
  std::printf("Galewsky h at (Ne, p) = (%d, %d): face size %d, %.3f MB raw; median of %d runs\n",
              ne, p, h.n, mb, runs);
  std::printf("%-28s %8s %14s %16s %18s\n", "compressor", "ratio", "compress MB/s",
              "decompress MB/s", "FFTW raw MB/s");
  for (const double ratio : {4.0, 16.0, 64.0}) {
    const DctCompressor dct(DctCompressor::pick(ratio, h));
    const ZfpCompressor zfp(ZfpCompressor::pick(ratio, h));
    const DctCompressor dct_step(DctCompressor::pick_step(ratio, h));
    // Fixed accuracy may not reach the ratio (no tolerance up to the field's magnitude fits):
    // its row is then left out.
    std::unique_ptr<ZfpCompressor> zfp_accuracy;
    try {
      zfp_accuracy = std::make_unique<ZfpCompressor>(ZfpCompressor::pick_accuracy(ratio, h));
    } catch (const exadnn::Error& e) {
      std::printf("zfp accuracy at %g:1: %s\n", ratio, e.what());
    }
    for (const Compressor* c :
         {static_cast<const Compressor*>(&dct), static_cast<const Compressor*>(&zfp),
          static_cast<const Compressor*>(&dct_step),
          static_cast<const Compressor*>(zfp_accuracy.get())}) {
      if (!c) continue;
      const std::vector<std::uint8_t> payload = c->compress(h);
      const double up = median_rate(runs, h.raw_bytes(), [&] { c->compress(h); });
      const double down = median_rate(runs, h.raw_bytes(), [&] { c->decompress(payload); });
      char raw[32] = "";
      if (c == &dct || c == &dct_step) {
        const int b = static_cast<const DctCompressor*>(c)->params().block;
        const BlockDct fftw(b);
        const std::vector<double> blocks = gather_blocks(h, b);
        const double rate = median_rate(runs, h.raw_bytes(), [&] {
          for (std::size_t k = 0; k < blocks.size(); k += static_cast<std::size_t>(b) * b)
            fftw.raw_forward(&blocks[k]);
        });
        std::snprintf(raw, sizeof raw, "%.1f", rate / 1e6);
      }
      std::printf("%-28s %8.2f %14.1f %16.1f %18s\n", c->describe().c_str(),
                  compression_ratio(h, payload.size()), up / 1e6, down / 1e6, raw);
    }
  }
  // The reference: plain 8 × 8 truncation (2 × 2 f64 coefficients per block).
  const DctCompressor plain({8, 2, 64});
  const std::vector<std::uint8_t> payload = plain.compress(h);
  const BlockDct fftw(8);
  const std::vector<double> blocks = gather_blocks(h, 8);
  const double raw = median_rate(runs, h.raw_bytes(), [&] {
    for (std::size_t k = 0; k < blocks.size(); k += 64) fftw.raw_forward(&blocks[k]);
  });
  std::printf("%-28s %8.2f %14.1f %16.1f %18.1f\n", plain.describe().c_str(),
              compression_ratio(h, payload.size()),
              median_rate(runs, h.raw_bytes(), [&] { plain.compress(h); }) / 1e6,
              median_rate(runs, h.raw_bytes(), [&] { plain.decompress(payload); }) / 1e6,
              raw / 1e6);
  return 0;
}
