// DG solver speed over MPI ranks: DOF-stages per second, in all and per core (rank), on
// Williamson 2 at one (Ne, p), several timed runs of the same number of steps; the median and the
// time the ranks waited for the neighbours' traces (what the volume terms did not hide). Per
// wall-clock second (the slowest rank's), and per CPU second summed over the ranks: the per-core
// figure when other work shares the cores (it counts MPI's busy waiting as work), and per CPU
// second outside the waits (the work the ranks did: what two free cores would scale by, less the
// messages' latency the overlap did not hide).
// Usage: mpirun -np P exadnn_climate_mpi_bench [Ne p seconds-per-run runs split|divergence]
// bench/climate_mpi_bench.sh runs it on 1 and 2 ranks and prints the strong-scaling efficiency.
#include <mpi.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <vector>

#include "climate/distributed.h"
#include "climate/williamson2.h"
#include "exadnn/dist/environment.h"

namespace {

double cpu_seconds() {
  timespec ts;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return ts.tv_sec + 1e-9 * ts.tv_nsec;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

}  // namespace

int main(int argc, char** argv) {
  using namespace climate;
  exadnn::dist::Environment env(&argc, &argv);
  const int ne = argc > 1 ? std::atoi(argv[1]) : 16;
  const int p = argc > 2 ? std::atoi(argv[2]) : 3;
  const double seconds = argc > 3 ? std::atof(argv[3]) : 2.0;
  const int runs = argc > 4 ? std::max(1, std::atoi(argv[4])) : 5;
  const bool split = argc > 5 ? std::strcmp(argv[5], "divergence") != 0 : true;
  const CubedSphere mesh(ne, p);
  const Williamson2 tc;
  ShallowWaterParams params = tc.params();
  params.volume = split ? VolumeForm::split : VolumeForm::divergence;
  const DistributedShallowWater dist(mesh, params, MPI_COMM_WORLD);
  Simulation sim(dist, tc.state(dist.local()), 0.5);
  // Warm-up (sizes the work states), then the steps of one run from its time on rank 0.
  MPI_Barrier(MPI_COMM_WORLD);
  double t0 = MPI_Wtime();
  sim.step();
  long steps = std::max(1L, static_cast<long>(seconds / (MPI_Wtime() - t0)));
  MPI_Bcast(&steps, 1, MPI_LONG, 0, MPI_COMM_WORLD);
  const double dof_stages =
      static_cast<double>(mesh.num_nodes()) * Rk4<SwState>::kStages * static_cast<double>(steps);
  std::vector<double> rate, cpu_rate, work_rate, waited;
  for (int r = 0; r < runs; ++r) {
    const double wait0 = dist.exchange().wait_seconds();
    const double wait_cpu0 = dist.exchange().wait_cpu_seconds();
    MPI_Barrier(MPI_COMM_WORLD);
    t0 = MPI_Wtime();
    const double cpu0 = cpu_seconds();
    for (long k = 0; k < steps; ++k) sim.step();
    double elapsed = MPI_Wtime() - t0, wait = dist.exchange().wait_seconds() - wait0;
    double cpu = cpu_seconds() - cpu0;
    double work = cpu - (dist.exchange().wait_cpu_seconds() - wait_cpu0);
    MPI_Allreduce(MPI_IN_PLACE, &work, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    // The slowest rank sets the pace; the CPU time is every rank's.
    MPI_Allreduce(MPI_IN_PLACE, &elapsed, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    MPI_Allreduce(MPI_IN_PLACE, &wait, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    MPI_Allreduce(MPI_IN_PLACE, &cpu, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    rate.push_back(dof_stages / elapsed);
    cpu_rate.push_back(dof_stages / cpu);
    work_rate.push_back(dof_stages / work);
    waited.push_back(wait / elapsed);
    if (dist.rank() == 0)
      std::printf(
          "run %d: %ld steps in %.3f s, %.4g DOF-stages/s, %.4g per core, %.4g per CPU s, "
          "%.4g per CPU s outside the waits, waiting for traces %.1f %%\n",
          r, steps, elapsed, rate.back(), rate.back() / dist.size(), cpu_rate.back(),
          work_rate.back(), 100 * waited.back());
  }
  if (dist.rank() == 0)
    std::printf(
        "median: ranks %d, %s, Ne %d, p %d, nodes %d: %.4g DOF-stages/s, %.4g per core, "
        "%.4g per CPU s, %.4g per CPU s outside the waits, waiting %.1f %%\n",
        dist.size(), split ? "split" : "divergence", ne, p, mesh.num_nodes(), median(rate),
        median(rate) / dist.size(), median(cpu_rate), median(work_rate), 100 * median(waited));
  return 0;
}
