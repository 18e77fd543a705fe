// DG solver speed: DOF-stages per second on one core (a DOF-stage = one node's four fields through
// one RK stage), on Williamson 2 at several (Ne, p). Reported per wall-clock second and per
// second of this process's CPU time (the per-core figure when other work shares the machine).
// Usage: exadnn_climate_bench [seconds per case]
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <ctime>

#include "climate/simulation.h"
#include "climate/williamson2.h"

namespace {

double cpu_seconds() {
  timespec ts;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return ts.tv_sec + 1e-9 * ts.tv_nsec;
}

}  // namespace

int main(int argc, char** argv) {
  using namespace climate;
  const double budget = argc > 1 ? std::atof(argv[1]) : 2.0;
  std::printf("%-10s %4s %3s %10s %8s %18s %18s\n", "volume", "Ne", "p", "nodes", "steps",
              "DOF-stages/s wall", "DOF-stages/s CPU");
  const int cases[][2] = {{8, 3}, {16, 3}, {8, 5}, {5, 7}};
  for (const VolumeForm form : {VolumeForm::split, VolumeForm::divergence})
    for (const auto& c : cases) {
      const CubedSphere mesh(c[0], c[1]);
      const Williamson2 tc;
      ShallowWaterParams params = tc.params();
      params.volume = form;
      const ShallowWater solver(mesh, params);
      Simulation sim(solver, tc.state(solver), 0.5);
      sim.step();  // warm-up: sizes the work states
      const auto start = std::chrono::steady_clock::now();
      const double cpu_start = cpu_seconds();
      long steps = 0;
      double seconds = 0;
      while (seconds < budget) {
        sim.step();
        ++steps;
        seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      }
      const double cpu = cpu_seconds() - cpu_start;
      const double dof_stages =
          static_cast<double>(mesh.num_nodes()) * Rk4<SwState>::kStages * steps;
      std::printf("%-10s %4d %3d %10d %8ld %18.4g %18.4g\n",
                  form == VolumeForm::split ? "split" : "divergence", c[0], c[1], mesh.num_nodes(),
                  steps, dof_stages / seconds, dof_stages / cpu);
    }
  return 0;
}
