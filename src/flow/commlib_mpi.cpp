#include "commlib_mpi.h"

#include "exadnn/core/error.h"

namespace exadnn::flow::detail {

std::mutex& mpi_mutex() {
  static std::mutex mutex;
  return mutex;
}

void throw_mpi_error(int code, std::string_view where, std::string_view what) {
  char text[MPI_MAX_ERROR_STRING];
  int length = 0;
  MPI_Error_string(code, text, &length);
  throw Error(std::string(where),
              std::string(what) + " failed: " + std::string(text, static_cast<size_t>(length)));
}

int max_tag(MPI_Comm comm) {
  int* value = nullptr;
  int flag = 0;
  MPI_Comm_get_attr(comm, MPI_TAG_UB, &value, &flag);
  return flag && value ? *value : 32767;
}

}  // namespace exadnn::flow::detail
