#include "commlib_mpi.h"

namespace exadnn::flow::detail {

std::mutex& mpi_mutex() {
  static std::mutex mutex;
  return mutex;
}

int max_tag(MPI_Comm comm) {
  int* value = nullptr;
  int flag = 0;
  mpi_check(MPI_Comm_get_attr(comm, MPI_TAG_UB, &value, &flag), "MPI_Comm_get_attr(MPI_TAG_UB)",
            "flow");
  return flag && value ? *value : 32767;
}

}  // namespace exadnn::flow::detail
