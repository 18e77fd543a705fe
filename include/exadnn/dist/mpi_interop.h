// Bridges to a host application's own MPI: communicators it created, and back.
//
//   MPI_Comm sim_comm = ...;                          // the simulation's communicator
//   auto comm = exadnn::dist::from_mpi(sim_comm);     // exadnn works on its own duplicate
#pragma once

#include <mpi.h>

#include "exadnn/dist/communicator.h"

namespace exadnn::dist {

/// A Communicator over the same ranks as `comm` (collective over `comm`). exadnn duplicates
/// `comm`, so its traffic never matches the application's; the application keeps `comm`.
Communicator from_mpi(MPI_Comm comm);

/// The MPI communicator exadnn's collectives run on (a duplicate; do not free it).
MPI_Comm native_handle(const Communicator& comm);

}  // namespace exadnn::dist
