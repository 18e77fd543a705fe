#include "comm_state.h"

#include <cstdlib>
#include <string>

#include "mpi_check.h"

namespace exadnn::dist::detail {

namespace {
std::chrono::milliseconds default_timeout() {
  if (const char* s = std::getenv("EXADNN_DIST_TIMEOUT")) {
    char* end = nullptr;
    const double seconds = std::strtod(s, &end);
    EXADNN_CHECK(end != s && *end == '\0' && seconds > 0, "dist",
                 "EXADNN_DIST_TIMEOUT must be a positive number of seconds, got '", s, "'");
    return std::chrono::milliseconds(static_cast<int64_t>(seconds * 1000));
  }
  return std::chrono::milliseconds(300'000);
}

MPI_Comm duplicate(MPI_Comm comm) {
  MPI_Comm dup = MPI_COMM_NULL;
  mpi_check(MPI_Comm_dup(comm, &dup), "MPI_Comm_dup");
  // Errors come back as codes and become exadnn::Error instead of aborting the job.
  mpi_check(MPI_Comm_set_errhandler(dup, MPI_ERRORS_RETURN), "MPI_Comm_set_errhandler");
  return dup;
}
}  // namespace

CommState::CommState(MPI_Comm comm)
    : data(duplicate(comm)), control(duplicate(comm)), timeout(default_timeout()) {
  mpi_check(MPI_Comm_rank(data, &rank), "MPI_Comm_rank");
  mpi_check(MPI_Comm_size(data, &size), "MPI_Comm_size");
}

CommState::~CommState() {
  int finalized = 1;
  MPI_Finalized(&finalized);
  if (finalized) return;
  for (PendingReply& p : pending_replies) MPI_Request_free(&p.request);
  MPI_Comm_free(&data);
  MPI_Comm_free(&control);
}

}  // namespace exadnn::dist::detail
