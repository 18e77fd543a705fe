#include "exadnn/dist/environment.h"

#include <mpi.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <thread>

#include "comm_state.h"
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

bool started_by_mpi_launcher() {
  for (const char* name : {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_RANK"})
    if (std::getenv(name) != nullptr) return true;
  return false;
}

bool abort_job(const std::string& message, int code) {
  if (!mpi_is_initialized()) return false;
  int size = 1, rank = 0;
  if (MPI_Comm_size(MPI_COMM_WORLD, &size) != MPI_SUCCESS || size < 2) return false;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);  // (an error leaves rank 0: the message still goes out)
  detail::abort_processes(
      MPI_COMM_WORLD,
      "exadnn (rank " + std::to_string(rank) + " of " + std::to_string(size) + "): " + message,
      code);
}

namespace detail {
void abort_processes(MPI_Comm comm, const std::string& message, int code) {
  std::fprintf(stderr, "%s\n", message.c_str());
  std::fflush(stderr);
  // mpirun forwards a rank's stderr through a pipe it reads asynchronously; MPI_Abort tears the
  // job down at once and the line could be lost (seen once in dist.cli_parallel_refusals, every
  // rank's message missing). A moment lets the forwarding deliver it.
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  MPI_Abort(comm, code);
  std::abort();  // MPI_Abort does not return; keep [[noreturn]] honest if it does
}
}  // namespace detail

Environment::Environment() : Environment(nullptr, nullptr) {}

Environment::Environment(int* argc, char*** argv) : started_(init_mpi(argc, argv)) {}

Environment::~Environment() {
  if (started_) finalize_if_running();
}

}  // namespace exadnn::dist
