// Bridges to a host application's own MPI: communicators it created, and back; requests it
// started, as a Work.
//
//   MPI_Comm sim_comm = ...;                          // the simulation's communicator
//   auto comm = exadnn::dist::from_mpi(sim_comm);     // exadnn works on its own duplicate
#pragma once

#include <mpi.h>

#include <memory>
#include <string>
#include <vector>

#include "exadnn/dist/communicator.h"
#include "exadnn/dist/work.h"

namespace exadnn::dist {

/// A Communicator over the same ranks as `comm` (collective over `comm`). exadnn duplicates
/// `comm`, so its traffic never matches the application's; the application keeps `comm`.
Communicator from_mpi(MPI_Comm comm);

/// The MPI communicator exadnn's collectives run on (a duplicate; do not free it).
MPI_Comm native_handle(const Communicator& comm);

/// A Work over non-blocking point-to-point requests the caller started on native_handle(comm):
/// test() and wait() complete them all, a wait is bounded by the communicator's timeout like
/// every other, and a failed request throws an Error naming `what`. `keep_alive` (what the
/// requests read or write) is released once they have completed.
Work work_from_requests(const Communicator& comm, std::vector<MPI_Request> requests,
                        std::string what, std::shared_ptr<const void> keep_alive = nullptr);

}  // namespace exadnn::dist
