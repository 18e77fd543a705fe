// MPI helpers shared by COMMLIB (channels and the tuple space) and the Executive; internal to
// src/flow. MPI return codes are checked with exadnn_dist's helper (dist/mpi_check.h), the one
// check of both libraries: mpi_check(code, "MPI_Send of ...", where).
#pragma once

#include <mpi.h>

#include <mutex>

#include "dist/mpi_check.h"

namespace exadnn::flow::detail {

using dist::detail::mpi_check;
using dist::detail::throw_mpi_error;

/// The one lock that serialises COMMLIB's MPI calls from several threads of a process (exadnn
/// initialises MPI at MPI_THREAD_SERIALIZED). Tuple-space clients take it around every MPI call.
std::mutex& mpi_mutex();

/// The largest tag the MPI library accepts on `comm` (MPI_TAG_UB, at least 32767).
int max_tag(MPI_Comm comm);

}  // namespace exadnn::flow::detail
