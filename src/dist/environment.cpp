#include "exadnn/dist/environment.h"

#include <mpi.h>

#include <cstdlib>
#include <mutex>

#include "mpi_check.h"

namespace exadnn::dist {

namespace {
constexpr int kThreadLevel = MPI_THREAD_SERIALIZED;

void finalize_if_running() {
  if (mpi_is_initialized()) MPI_Finalize();
}

// Initialises MPI; returns false when someone already had.
bool init_mpi(int* argc, char*** argv) {
  static std::mutex mutex;
  std::lock_guard lock(mutex);
  int initialized = 0;
  MPI_Initialized(&initialized);
  if (initialized) return false;
  int provided = 0;
  detail::mpi_check(MPI_Init_thread(argc, argv, kThreadLevel, &provided), "MPI_Init_thread");
  return true;
}
}  // namespace

bool mpi_is_initialized() {
  int initialized = 0, finalized = 0;
  MPI_Initialized(&initialized);
  MPI_Finalized(&finalized);
  return initialized && !finalized;
}

void ensure_mpi_initialized() {
  int finalized = 0;
  MPI_Finalized(&finalized);
  if (finalized) throw Error("dist", "MPI was already finalised; it cannot be used again");
  if (init_mpi(nullptr, nullptr)) std::atexit(&finalize_if_running);
}

Environment::Environment() : Environment(nullptr, nullptr) {}

Environment::Environment(int* argc, char*** argv) : started_(init_mpi(argc, argv)) {}

Environment::~Environment() {
  if (started_) finalize_if_running();
}

}  // namespace exadnn::dist
