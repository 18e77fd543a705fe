// Trainer speed against the simulation's output rate (issue 17, "Trainer samples/s vs the
// simulation's output rate"), in one process, one thread, with the in-situ workflow's settings
// (workflows/climate_in_situ.yaml): Galewsky with the bump, output every 3 h, CFL 0.5, DCT picked
// for 16:1 on day-0 h; the correction network of width 12 and depth 4 with the phase channels of
// the element and the DCT block, trained by CorrectionTrainer (capacity 240, batch 6, lr 1e-3) in
// rounds of 12 examples, as climate_train_correction does.
//
// Per (Ne, p) and per run, alternately:
//   simulation  RK4 steps for at least `seconds` of CPU time; its CPU (and wall) seconds per
//               output step = seconds per model second × 3 h, plus the compression of h, u, v
//               (one output step's); output rate = 6 face examples / seconds per output step;
//   trainer     training rounds for at least `seconds` of CPU time; examples/s = examples
//               trained / the rounds' seconds (set-up and the per-round score included, as the
//               workflow counts them). The buffer gets the current state's pair before each run.
// Printed: the medians over the runs, per CPU second (the per-core figure when other work shares
// the machine) and per wall second, and trainer / output rate. The load average is printed
// before and after.
// Usage: exadnn_climate_correction_trainer_bench [runs] [seconds] [Ne p]...
//        (defaults: 5 runs, 1.5 s, (16, 4) and (8, 4))
#include <exadnn/backend/runtime.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <exception>
#include <fstream>
#include <string>
#include <utility>
#include <vector>

#include "climate/compressor.h"
#include "climate/correction.h"
#include "climate/correction_trainer.h"
#include "climate/dct_compressor.h"
#include "climate/galewsky.h"
#include "climate/simulation.h"

namespace {

using namespace climate;

constexpr double kOutputSeconds = 3 * 3600.0;  // climate_in_situ.yaml: output_hours 3
constexpr int64_t kRoundExamples = 12;         // climate_in_situ.yaml: round_examples 12

double cpu_seconds() {  // this process's CPU time (one thread: the per-core time)
  timespec ts;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return ts.tv_sec + 1e-9 * ts.tv_nsec;
}

double wall_seconds() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

std::string load_average() {
  std::ifstream file("/proc/loadavg");
  std::string one, five, fifteen;
  file >> one >> five >> fifteen;
  return file ? one + " " + five + " " + fifteen : "unknown";
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

// A rate measured per CPU second and per wall second.
struct Rate {
  double cpu = 0, wall = 0;
};

struct CaseFigures {
  std::vector<double> sim_cpu, sim_wall, compress_cpu;  // seconds per output step
  std::vector<Rate> output, trainer;                    // examples per second
};

CaseFigures run_case(int ne, int p, int runs, double seconds) {
  const CubedSphere mesh(ne, p);
  const Galewsky tc(true);
  const ShallowWater solver(mesh, tc.params());
  Simulation sim(solver, tc.state(solver), 0.5);
  const Fields first = correction_fields(solver, sim.state());
  const auto compressor = make_compressor(CompressorKind::dct, 16, first[0]);
  const auto* dct = dynamic_cast<const DctCompressor*>(compressor.get());
  CorrectionOptions options{.fields = 3, .width = 12, .depth = 4, .seed = 1};
  options.periods = {p + 1};  // the workflow's phase channels: the element, the DCT block
  if (dct->params().block != p + 1) options.periods.push_back(dct->params().block);
  Correction correction(mesh, options);
  CorrectionTrainer trainer(correction, {.capacity = 240, .batch = 6, .lr = 1e-3, .seed = 1});
  std::printf("(%d, %d): face %d x %d, %s, network %lld bytes of f32, %d input channels\n", ne, p,
              ne * (p + 1), ne * (p + 1), compressor->describe().c_str(),
              static_cast<long long>(correction.bytes()), correction.input_channels());

  // One output step's compression (h, u, v) and its pair into the replay buffer; returns the
  // compression's CPU seconds.
  auto add_pair = [&] {
    const Fields original = correction_fields(solver, sim.state());
    const double t = cpu_seconds();
    std::vector<std::vector<std::uint8_t>> payloads;
    for (const FaceField& f : original) payloads.push_back(compressor->compress(f));
    const double spent = cpu_seconds() - t;
    Fields decompressed;
    for (const auto& payload : payloads) decompressed.push_back(compressor->decompress(payload));
    trainer.add(decompressed, original);
    return spent;
  };
  add_pair();
  sim.step();  // warm-up: sizes the work states
  add_pair();
  trainer.train(kRoundExamples);  // warm-up: the first round's one-off set-up

  CaseFigures out;
  for (int r = 0; r < runs; ++r) {
    const double t0 = sim.time(), c0 = cpu_seconds(), w0 = wall_seconds();
    do sim.step();
    while (cpu_seconds() - c0 < seconds);
    const double per_model_s = kOutputSeconds / (sim.time() - t0);
    const double compress = add_pair();
    out.sim_cpu.push_back((cpu_seconds() - c0) * per_model_s);
    out.sim_wall.push_back((wall_seconds() - w0) * per_model_s);
    out.compress_cpu.push_back(compress);
    out.output.push_back(
        {6 / (out.sim_cpu.back() + compress), 6 / (out.sim_wall.back() + compress)});

    const double c1 = cpu_seconds(), w1 = wall_seconds();
    int64_t examples = 0;
    do examples += trainer.train(kRoundExamples).examples;
    while (cpu_seconds() - c1 < seconds);
    out.trainer.push_back({examples / (cpu_seconds() - c1), examples / (wall_seconds() - w1)});
  }
  return out;
}

}  // namespace

int main(int argc, char** argv) {
  const int runs = argc > 1 ? std::atoi(argv[1]) : 5;
  const double seconds = argc > 2 ? std::atof(argv[2]) : 1.5;
  std::vector<std::pair<int, int>> cases;
  for (int a = 3; a + 1 < argc; a += 2)
    cases.emplace_back(std::atoi(argv[a]), std::atoi(argv[a + 1]));
  if (cases.empty()) cases = {{16, 4}, {8, 4}};
  if (runs < 1 || !(seconds > 0) || (argc > 3 && argc % 2 == 0)) {
    std::fprintf(stderr, "usage: %s [runs >= 1] [seconds > 0] [Ne p]...\n", argv[0]);
    return 2;
  }
  exadnn::set_num_threads(1);
  const char* omp = std::getenv("OMP_NUM_THREADS");
  std::printf(
      "correction trainer vs the simulation's output rate: one thread (exadnn threads %d, "
      "OMP_NUM_THREADS=%s), medians of %d runs of >= %g CPU s each; load average before: %s\n",
      exadnn::get_num_threads(), omp ? omp : "unset", runs, seconds, load_average().c_str());
  std::printf(
      "Galewsky with the bump, output every 3 h, CFL 0.5, DCT for 16:1; network width 12, depth 4; "
      "rounds of %lld examples, batch 6\n",
      static_cast<long long>(kRoundExamples));
  std::vector<std::pair<std::pair<int, int>, CaseFigures>> results;
  for (const auto& [ne, p] : cases) try {
      results.emplace_back(std::make_pair(ne, p), run_case(ne, p, runs, seconds));
    } catch (const std::exception& e) {  // e.g. an invalid mesh size, named by the mesh
      std::fprintf(stderr, "%s: (Ne, p) = (%d, %d): %s\n", argv[0], ne, p, e.what());
      return 1;
    }

  auto cpu = [](const std::vector<Rate>& v) {
    std::vector<double> x;
    for (const Rate& r : v) x.push_back(r.cpu);
    return median(x);
  };
  auto wall = [](const std::vector<Rate>& v) {
    std::vector<double> x;
    for (const Rate& r : v) x.push_back(r.wall);
    return median(x);
  };
  std::printf("%-8s %14s %12s %14s %14s %9s | %14s %14s %9s\n", "(Ne, p)", "solver s/output",
              "compress s", "output ex/s", "trainer ex/s", "ratio", "wall output", "wall trainer",
              "ratio");
  for (const auto& [c, f] : results) {
    std::vector<double> ratio_cpu, ratio_wall;
    for (size_t r = 0; r < f.output.size(); ++r) {
      ratio_cpu.push_back(f.trainer[r].cpu / f.output[r].cpu);
      ratio_wall.push_back(f.trainer[r].wall / f.output[r].wall);
    }
    char name[32];
    std::snprintf(name, sizeof name, "(%d, %d)", c.first, c.second);
    std::printf("%-8s %14.3f %12.4f %14.3f %14.1f %9.1f | %14.3f %14.1f %9.1f\n", name,
                median(f.sim_cpu), median(f.compress_cpu), cpu(f.output), cpu(f.trainer),
                median(ratio_cpu), wall(f.output), wall(f.trainer), median(ratio_wall));
  }
  std::printf(
      "(solver s/output: CPU seconds per 3-hour output step; output ex/s: 6 face examples per "
      "output step, solver and compression; ratio: trainer / output rate, median of the runs' "
      "ratios)\nload average after: %s\n",
      load_average().c_str());
  return 0;
}
