// make_distribution and abort_job for an exadnn built without MPI (tools/CMakeLists.txt compiles
// this file or distribution_mpi.cpp).
#include "distribution.h"

#include "exadnn/core/error.h"

namespace exadnn::cli {

std::unique_ptr<Distribution> make_distribution(const MpiSpec& spec) {
  EXADNN_CHECK(!spec.enabled, "train", "distributed.mode '", spec.mode,
               "' needs MPI, and this exadnn was built without it (install libopenmpi-dev and "
               "rebuild)");
  return std::make_unique<Distribution>();
}

bool abort_job(const std::string&, int) {
  return false;
}

}  // namespace exadnn::cli
