// Compression errors: RMSE (absolute, and relative to the field's rms) of h, u, v (the zonal and
// meridional wind) after DCT and ZFP (fixed rate) compression at 4:1, 16:1 and 64:1, on
// Galewsky's initial state (with the bump) and after `days` of the split-form DG run (none when
// days = 0), at (Ne, p). Each compressor's parameters are picked for the ratio on the field it
// compresses. Then the comparison: plain 8 × 8 DCT truncation (2 × 2 f64 coefficients
// kept per block) against ZFP at ~16:1, fixed rate and fixed accuracy. With a directory, writes
// one stream file per compressor at 16:1 holding both states (for climate_decompress).
// Usage: exadnn_climate_compress_errors [Ne] [p] [days] [stream dir]
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "climate/compress_fields.h"
#include "climate/dct_compressor.h"
#include "climate/galewsky.h"
#include "climate/simulation.h"
#include "climate/stream.h"
#include "climate/zfp_compressor.h"
#include "exadnn/core/error.h"

namespace {

using namespace climate;

struct Fields {
  FaceField f[3];  // h, u, v
};
const char* const kNames[3] = {"h", "u", "v"};

Fields fields_of(const ShallowWater& solver, const SwState& U) {
  Fields out;
  out.f[0] = gather_face_field(solver, U, 0);
  velocity_face_fields(solver, U, out.f[1], out.f[2]);
  return out;
}

// The payload size and the RMSE of compressing `f` with `c`.
std::pair<std::size_t, double> trial(const Compressor& c, const FaceField& f) {
  const std::vector<std::uint8_t> payload = c.compress(f);
  return {payload.size(), rmse(f, c.decompress(payload))};
}

}  // namespace

int main(int argc, char** argv) {
  const int ne = argc > 1 ? std::atoi(argv[1]) : 16;
  const int p = argc > 2 ? std::atoi(argv[2]) : 4;
  const double days = argc > 3 ? std::atof(argv[3]) : 3;
  const std::string dir = argc > 4 ? argv[4] : "";
  const CubedSphere mesh(ne, p);
  const Galewsky tc(true);
  const ShallowWater solver(mesh, tc.params());
  Simulation sim(solver, tc.state(solver), 0.5);
  const Fields initial = fields_of(solver, sim.state());
  const auto start = std::chrono::steady_clock::now();
  if (days > 0) sim.advance_to(days * 86400);
  const double run_s =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  const Fields later = fields_of(solver, sim.state());
  std::printf(
      "Galewsky with the bump, (Ne, p) = (%d, %d), face size %d; day %g reached in %ld "
      "steps, %.0f s\n\n",
      ne, p, initial.f[0].n, days, sim.steps(), run_s);

  std::printf(
      "| state | ratio | field | rms | DCT parameters | DCT ratio | DCT RMSE | DCT rel | "
      "ZFP parameters | ZFP ratio | ZFP RMSE | ZFP rel | DCT / ZFP |\n");
  std::printf("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |\n");
  std::vector<const Fields*> states = {&initial};
  if (days > 0) states.push_back(&later);
  for (const double ratio : {4.0, 16.0, 64.0})
    for (int v = 0; v < 3; ++v)
      for (const Fields* s : states) {
        const FaceField& f = s->f[v];
        const DctCompressor dct(DctCompressor::pick(ratio, f));
        const ZfpCompressor zfp(ZfpCompressor::pick(ratio, f));
        const auto [dbytes, derr] = trial(dct, f);
        const auto [zbytes, zerr] = trial(zfp, f);
        std::printf(
            "| day %g | %g:1 | %s | %.4g | %s | %.2f | %.3e | %.2e | %s | %.2f | %.3e | "
            "%.2e | %.3g |\n",
            s == &initial ? 0.0 : days, ratio, kNames[v], rms(f), dct.describe().c_str(),
            compression_ratio(f, dbytes), derr, derr / rms(f), zfp.describe().c_str(),
            compression_ratio(f, zbytes), zerr, zerr / rms(f), derr / zerr);
      }

  std::printf(
      "\nAdaptive (bits where the field varies): DCT with a uniform step vs ZFP fixed "
      "accuracy, each sized to the ratio on the field:\n\n");
  std::printf(
      "| state | ratio | field | DCT parameters | DCT ratio | DCT RMSE | DCT rel | "
      "ZFP tolerance | ZFP ratio | ZFP RMSE | ZFP rel | DCT / ZFP |\n");
  std::printf("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |\n");
  for (const double ratio : {4.0, 16.0, 64.0})
    for (int v = 0; v < 3; ++v)
      for (const Fields* s : states) {
        const FaceField& f = s->f[v];
        const DctCompressor dct(DctCompressor::pick_step(ratio, f));
        ZfpParams zp{ZfpParams::Mode::accuracy, 0};
        try {
          zp = ZfpCompressor::pick_accuracy(ratio, f);
        } catch (const exadnn::Error&) {  // no tolerance up to the field's magnitude fits
          const auto [dbytes, derr] = trial(dct, f);
          std::printf("| day %g | %g:1 | %s | %s | %.2f | %.3e | %.2e | out of reach | | | | |\n",
                      s == &initial ? 0.0 : days, ratio, kNames[v], dct.describe().c_str(),
                      compression_ratio(f, dbytes), derr, derr / rms(f));
          continue;
        }
        const ZfpCompressor zfp(zp);
        const auto [dbytes, derr] = trial(dct, f);
        const auto [zbytes, zerr] = trial(zfp, f);
        std::printf(
            "| day %g | %g:1 | %s | %s | %.2f | %.3e | %.2e | %.3g | %.2f | %.3e | %.2e | "
            "%.3g |\n",
            s == &initial ? 0.0 : days, ratio, kNames[v], dct.describe().c_str(),
            compression_ratio(f, dbytes), derr, derr / rms(f), zfp.params().value,
            compression_ratio(f, zbytes), zerr, zerr / rms(f), derr / zerr);
      }

  std::printf("\nThe issue's comparison, plain 8x8 DCT truncation vs ZFP at ~16:1:\n\n");
  std::printf(
      "| state | field | plain DCT ratio | plain DCT RMSE | ZFP rate, ratio | ZFP RMSE | "
      "plain DCT / ZFP | ZFP tolerance, ratio | ZFP RMSE | plain DCT / ZFP |\n"
      "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |\n");
  const DctCompressor plain({8, 2, 64});
  for (int v = 0; v < 3; ++v)
    for (const Fields* s : states) {
      const FaceField& f = s->f[v];
      const ZfpCompressor rate(ZfpCompressor::pick(16, f));
      const ZfpCompressor accuracy(ZfpCompressor::pick_accuracy(16, f));
      const auto [dbytes, derr] = trial(plain, f);
      const auto [rbytes, rerr] = trial(rate, f);
      const auto [abytes, aerr] = trial(accuracy, f);
      std::printf(
          "| day %g | %s | %.2f | %.3e | %g, %.2f | %.3e | %.1f | %.3g, %.2f | %.3e | %.1f |\n",
          s == &initial ? 0.0 : days, kNames[v], compression_ratio(f, dbytes), derr,
          rate.params().value, compression_ratio(f, rbytes), rerr, derr / rerr,
          accuracy.params().value, compression_ratio(f, abytes), aerr, derr / aerr);
    }

  if (dir.empty()) return 0;
  std::printf("\nStream files at 16:1 (parameters picked on the initial h), 2 steps x 3 fields:\n");
  for (const CompressorKind kind : {CompressorKind::dct, CompressorKind::zfp}) {
    const auto c = make_compressor(kind, 16, initial.f[0]);
    const std::string path = dir + "/galewsky_" + compressor_kind_name(kind) + ".czs";
    StreamWriter w(path, *c, ne, p, {"h", "u", "v"});
    w.write(0, 0, {initial.f[0], initial.f[1], initial.f[2]});
    w.write(static_cast<std::uint64_t>(sim.steps()), sim.time(),
            {later.f[0], later.f[1], later.f[2]});
    const double raw = 6.0 * initial.f[0].raw_bytes();
    std::printf("%s: %s, %llu bytes for %.0f raw: ratio %.3f (headers included)\n", path.c_str(),
                c->describe().c_str(), static_cast<unsigned long long>(w.bytes_written()), raw,
                raw / w.bytes_written());
  }
  return 0;
}
