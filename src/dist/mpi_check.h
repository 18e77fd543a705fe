// The one MPI error check of exadnn's MPI libraries: exadnn_dist and exadnn_flow (which includes
// it as "dist/mpi_check.h" and links exadnn_dist) both use it. Their communicators are set to
// MPI_ERRORS_RETURN, so every MPI call's code goes through here: a failed call becomes an
// exadnn::Error naming the call and MPI's own message, never an ignored code (a hang later).
#pragma once

#include <mpi.h>

#include <string>
#include <string_view>

namespace exadnn::dist::detail {

/// MPI's own text for an error code ("MPI_ERR_TRUNCATE: message truncated").
std::string mpi_error_string(int code);

/// Throws Error(where, "<call> failed: <MPI's text>"); `call` names the MPI function, with what
/// it did if that helps ("MPI_Send of a task report").
[[noreturn]] void throw_mpi_error(int code, std::string_view call, std::string_view where = "dist");

/// Throws as throw_mpi_error unless `code` is MPI_SUCCESS (no string is built on success: this
/// sits on every message's path).
inline void mpi_check(int code, std::string_view call, std::string_view where = "dist") {
  if (code != MPI_SUCCESS) throw_mpi_error(code, call, where);
}

}  // namespace exadnn::dist::detail
