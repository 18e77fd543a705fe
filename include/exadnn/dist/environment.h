// MPI start-up and shut-down, owned by whoever started MPI.
//
// exadnn initialises MPI only if nobody has, and finalises only what it started: a simulation that
// calls MPI_Init itself keeps control of MPI_Finalize. Programs that leave MPI to exadnn can hold
// an Environment in main() to choose the moment of MPI_Finalize; without one, the first
// Communicator::world() initialises MPI and it is finalised at exit.
#pragma once

#include <string>

namespace exadnn::dist {

/// Initialises MPI (thread level MPI_THREAD_SERIALIZED) unless it already is; finalises it on
/// destruction if, and only if, this object initialised it.
class Environment {
 public:
  Environment();
  Environment(int* argc, char*** argv);
  ~Environment();
  Environment(const Environment&) = delete;
  Environment& operator=(const Environment&) = delete;

  /// True when this object called MPI_Init_thread.
  bool started_mpi() const { return started_; }

 private:
  bool started_ = false;
};

/// True between MPI_Init and MPI_Finalize (by anyone).
bool mpi_is_initialized();

/// Initialises MPI if nobody has; exadnn then finalises it at exit.
void ensure_mpi_initialized();

/// True when an MPI launcher started this process (mpirun or mpiexec of Open MPI, MPICH or Intel
/// MPI, or srun): its environment holds the world size or rank that the launcher sets
/// (OMPI_COMM_WORLD_SIZE, PMI_SIZE or PMIX_RANK). For programs that run as one process without
/// MPI when started by hand, and so never pay MPI's start-up (nor its allocations that outlive
/// MPI_Finalize) there.
bool started_by_mpi_launcher();

/// For front ends' error paths: in a running MPI job of two or more processes, prints
/// "exadnn (rank R of N): <message>" on stderr and ends every process of the job (MPI_Abort on
/// MPI_COMM_WORLD) with exit code `code`; otherwise (no MPI, or one process) returns false and
/// leaves the error to the caller. Needs no Communicator and is never collective, so a rank can
/// call it alone. (Communicator::abort ends a communicator's processes the same way.)
bool abort_job(const std::string& message, int code = 1);

}  // namespace exadnn::dist
