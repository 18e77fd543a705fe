// Turns MPI return codes into exadnn::Error (exadnn's communicators use MPI_ERRORS_RETURN).
#pragma once

#include <mpi.h>

#include <string>

#include "exadnn/core/error.h"

namespace exadnn::dist::detail {

/// MPI's own text for an error code.
std::string mpi_error_string(int code);

/// Throws Error("dist::<what>", MPI's message) unless `code` is MPI_SUCCESS.
inline void mpi_check(int code, const char* what) {
  if (code != MPI_SUCCESS) throw Error(std::string("dist::") + what, mpi_error_string(code));
}

}  // namespace exadnn::dist::detail
