// MPI start-up and shut-down, owned by whoever started MPI.
//
// exadnn initialises MPI only if nobody has, and finalises only what it started: a simulation that
// calls MPI_Init itself keeps control of MPI_Finalize. Programs that leave MPI to exadnn can hold
// an Environment in main() to choose the moment of MPI_Finalize; without one, the first
// Communicator::world() initialises MPI and it is finalised at exit.
#pragma once

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

}  // namespace exadnn::dist
