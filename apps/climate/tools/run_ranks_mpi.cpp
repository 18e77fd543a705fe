// climate_run over MPI: under mpirun with N > 1 ranks, the elements spread over MPI_COMM_WORLD
// (DistributedShallowWater); a single process runs as without MPI, and one started by hand (no
// launcher) does not start MPI at all (run_ranks.h).
#include <mpi.h>

#include "climate/distributed.h"
#include "exadnn/dist/environment.h"
#include "run_ranks.h"

namespace climate {
namespace {

class MpiRanks final : public RunRanks {
 public:
  MpiRanks(const CubedSphere& mesh, const ShallowWaterParams& params)
      : dist_(mesh, params, MPI_COMM_WORLD) {}

  int rank() const override { return dist_.rank(); }
  int size() const override { return dist_.size(); }
  const ShallowWater& local() const override { return dist_.local(); }
  std::unique_ptr<Simulation> simulation(SwState initial, double cfl) const override {
    return std::make_unique<Simulation>(dist_, std::move(initial), cfl);
  }
  SwState gather(const SwState& part) const override { return dist_.gather(part); }
  SwState part_of(const SwState& whole) const override { return dist_.scatter_local(whole); }

 private:
  DistributedShallowWater dist_;
};

}  // namespace

std::unique_ptr<RunRanks> make_run_ranks(const CubedSphere& mesh,
                                         const ShallowWaterParams& params) {
  // Started by hand: one process, MPI never started (its start-up and the allocations it keeps
  // past MPI_Finalize are not this run's business).
  if (!exadnn::dist::mpi_is_initialized() && !exadnn::dist::started_by_mpi_launcher())
    return single_process(mesh, params);
  exadnn::dist::ensure_mpi_initialized();
  int size = 1;
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (size == 1) return single_process(mesh, params);
  return std::make_unique<MpiRanks>(mesh, params);
}

void end_job_on_error(const std::string& message) {
  exadnn::dist::abort_job("climate_run: " + message);
}

}  // namespace climate
