// climate_run where the build has no MPI layer: always one process (run_ranks.h).
#include "run_ranks.h"

namespace climate {

std::unique_ptr<RunRanks> make_run_ranks(const CubedSphere& mesh,
                                         const ShallowWaterParams& params) {
  return single_process(mesh, params);
}

void end_job_on_error(const std::string& /*message*/) {}

}  // namespace climate
