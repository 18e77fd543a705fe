// MPI helpers shared by COMMLIB (channels and the tuple space); internal to src/flow.
#pragma once

#include <mpi.h>

#include <mutex>
#include <string>
#include <string_view>

namespace exadnn::flow::detail {

/// The one lock that serialises COMMLIB's MPI calls from several threads of a process (exadnn
/// initialises MPI at MPI_THREAD_SERIALIZED). Tuple-space clients take it around every MPI call.
std::mutex& mpi_mutex();

/// Throws exadnn::Error(where, what + MPI's message).
[[noreturn]] void throw_mpi_error(int code, std::string_view where, std::string_view what);

/// Throws exadnn::Error(where, what + MPI's message) unless `code` is MPI_SUCCESS (no string is
/// built on success: this sits on every message's path).
inline void check_mpi(int code, std::string_view where, std::string_view what) {
  if (code != MPI_SUCCESS) throw_mpi_error(code, where, what);
}

/// The largest tag the MPI library accepts on `comm` (MPI_TAG_UB, at least 32767).
int max_tag(MPI_Comm comm);

}  // namespace exadnn::flow::detail
