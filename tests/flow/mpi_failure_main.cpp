// The Executive when one of its own MPI calls fails (before the fix the return code was ignored:
// the run hung, or went on with garbage). Through MPI's profiling interface this program makes
// one call fail on one rank once the workflow has started:
//   mpirun -np 3 exadnn_flow_mpi_failure FUNCTION RANK [NTH]
// returns MPI_ERR_OTHER from the NTH call (default 1) of FUNCTION (MPI_Send, MPI_Bcast,
// MPI_Irecv or MPI_Comm_dup) on rank RANK. The rank whose call failed must get an exadnn::Error
// naming the call and MPI's message; the program then ends the job with it through
// dist::abort_job, as `exadnn flow run` does. The CTest entries (flow_tests.cmake) pass when the
// message appears, within a short timeout, and no rank returned from the workflow (when rank 0's
// scheduler fails the workers must fail too).
#include <mpi.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <string>

#include "exadnn/dist/communicator.h"
#include "exadnn/dist/environment.h"
#include "exadnn/flow/control_file.h"
#include "exadnn/flow/executive.h"
#include "exadnn/flow/module.h"

namespace {

// The failure to inject (set by main before the workflow starts).
bool g_armed = false;
std::string g_function;
int g_rank = -1;  // the rank that fails
int g_me = -1;    // this rank
int g_nth = 1;
int g_calls = 0;  // calls of g_function on this rank since arming

// True when this call of `function` is the one that fails.
bool fail_now(const char* function) {
  if (!g_armed || g_me != g_rank || g_function != function) return false;
  return ++g_calls == g_nth;
}

void noop(exadnn::flow::ModuleContext&) {}
EXADNN_FLOW_MODULE(flow_mpi_failure_noop, noop);

}  // namespace

// The interposed MPI functions: the library's calls land here, the real ones are PMPI_*.
extern "C" {
int MPI_Send(const void* buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm) {
  return fail_now("MPI_Send") ? MPI_ERR_OTHER : PMPI_Send(buf, count, type, dest, tag, comm);
}
int MPI_Bcast(void* buf, int count, MPI_Datatype type, int root, MPI_Comm comm) {
  return fail_now("MPI_Bcast") ? MPI_ERR_OTHER : PMPI_Bcast(buf, count, type, root, comm);
}
int MPI_Irecv(void* buf, int count, MPI_Datatype type, int source, int tag, MPI_Comm comm,
              MPI_Request* request) {
  return fail_now("MPI_Irecv") ? MPI_ERR_OTHER
                               : PMPI_Irecv(buf, count, type, source, tag, comm, request);
}
int MPI_Comm_dup(MPI_Comm comm, MPI_Comm* out) {
  return fail_now("MPI_Comm_dup") ? MPI_ERR_OTHER : PMPI_Comm_dup(comm, out);
}
}

int main(int argc, char** argv) {
  using namespace exadnn;
  dist::Environment env(&argc, &argv);
  const dist::Communicator world = dist::Communicator::world();
  if (argc < 3) {
    std::fprintf(stderr, "usage: %s FUNCTION RANK [NTH]\n", argv[0]);
    return 2;
  }
  // Two workers run one module on both of them (a communicator of its own), twice.
  const flow::ControlFile file = flow::parse_control_file(
      "modules:\n  work: {run: flow_mpi_failure_noop}\n"
      "workflow:\n  iterations: 2\n  groups:\n    - {name: all, modules: [work]}\n",
      "mpi_failure", world.size());
  flow::RunOptions options;
  options.stop_grace = std::chrono::seconds(20);
  g_function = argv[1];
  g_rank = std::atoi(argv[2]);
  g_nth = argc > 3 ? std::atoi(argv[3]) : 1;
  g_me = world.rank();
  g_armed = true;
  try {
    flow::run_workflow(file, world, options);
  } catch (const std::exception& e) {
    dist::abort_job(e.what(), 3);
    return 3;
  }
  g_armed = false;
  std::printf("rank %d: the workflow ended without an error (unexpected)\n", g_me);
  return 1;
}
