// The MPI error check shared by exadnn_dist and exadnn_flow (see mpi_check.h).
#include "mpi_check.h"

#include "exadnn/core/error.h"

namespace exadnn::dist::detail {

std::string mpi_error_string(int code) {
  char text[MPI_MAX_ERROR_STRING];
  int length = 0;
  if (MPI_Error_string(code, text, &length) != MPI_SUCCESS)
    return "MPI error " + std::to_string(code);
  return std::string(text, static_cast<size_t>(length));
}

void throw_mpi_error(int code, std::string_view call, std::string_view where) {
  throw Error(std::string(where), std::string(call) + " failed: " + mpi_error_string(code));
}

}  // namespace exadnn::dist::detail
