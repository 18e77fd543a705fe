// run_workflow: sets up the Executive's communicators and hands each rank its role (scheduler,
// worker or tuple-space server); see exadnn/flow/executive.h.
#include "exadnn/flow/executive.h"

#include <exception>
#include <fstream>

#include "exadnn/dist/mpi_interop.h"
#include "flow/commlib_mpi.h"
#include "flow/control_file_problems.h"
#include "flow/executive_protocol.h"
#include "flow/executive_roles.h"

namespace exadnn::flow {

namespace detail {
void write_timeline(const std::string& path, const std::vector<TimelineEvent>& events) {
  std::ofstream out(path);
  EXADNN_CHECK(out.good(), "flow", "cannot write the timeline to '", path, "'");
  out << timeline_json(events);
  EXADNN_CHECK(out.good(), "flow", "writing the timeline to '", path, "' failed");
}
}  // namespace detail

RunResult run_workflow(const ControlFile& file, const dist::Communicator& job,
                       const RunOptions& options) {
  // Every rank checks the same file against the same job size, so all throw or none does.
  detail::Problems problems(file.origin);
  detail::validate_control_file(file, problems, job.size());
  if (!problems.empty()) throw ControlFileError(problems.items());

  detail::ExecutiveSetup x;
  x.file = &file;
  x.options = options;
  if (x.options.timeline.empty()) x.options.timeline = file.timeline;
  x.job = &job;
  x.rank = job.rank();
  x.size = job.size();
  x.workers = x.size - 1 - file.tuple_space_servers;
  const MPI_Comm parent = dist::native_handle(job);
  detail::mpi_check(MPI_Comm_dup(parent, &x.control), "MPI_Comm_dup (control)", detail::kExecutive);
  detail::mpi_check(MPI_Comm_dup(parent, &x.creation), "MPI_Comm_dup (creation)",
                    detail::kExecutive);
  // COMMLIB's own communicators: channel and tuple-space traffic never matches the Executive's.
  x.services = std::make_shared<detail::RankServices>();
  x.services->file = &file;
  x.services->channel_comm = dist::from_mpi(parent);
  const dist::Communicator space_comm = dist::from_mpi(parent);
  TupleSpaceLayout layout;
  for (int r = x.workers + 1; r < x.size; ++r) layout.server_ranks.push_back(r);
  const bool is_server = x.rank > x.workers;
  if (!layout.server_ranks.empty() && !is_server)
    x.services->tuple_space.emplace(space_comm, layout);

  // One time origin for the timeline: rank 0's steady clock (CLOCK_MONOTONIC is shared by the
  // processes of a node; across nodes the events carry the nodes' clock offsets).
  x.t0 = detail::now_us();
  detail::mpi_check(MPI_Bcast(&x.t0, 1, MPI_INT64_T, 0, x.control), "MPI_Bcast of the start time",
                    detail::kExecutive);
  RunResult result;
  std::exception_ptr failure;  // rank 0: what went wrong in the scheduler itself
  if (is_server) {
    serve_tuple_space(space_comm, layout);
  } else if (x.rank == 0) {
    // An error of the scheduler itself still lets every rank reach the end (no rank waits for
    // a scheduler that is gone); it is rethrown on rank 0 once the others are released.
    try {
      result = detail::run_scheduler(x);
    } catch (...) {
      failure = std::current_exception();
      result.ok = false;
      detail::stop_workers(x, false);
    }
    try {
      // Every client is done (each task reported), so the servers may go.
      if (x.services->tuple_space) x.services->tuple_space->shutdown_servers();
      if (!x.options.timeline.empty()) detail::write_timeline(x.options.timeline, result.timeline);
    } catch (...) {
      if (!failure) failure = std::current_exception();
      result.ok = false;
    }
  } else {
    detail::run_worker(x);
  }
  // Everyone learns how the run ended (and no rank frees the communicators while others use them):
  // kFinished, kStopped (a module failed with on_error: stop), or kSchedulerFailed.
  enum Outcome : int { kSchedulerFailed = -1, kStopped = 0, kFinished = 1 };
  int outcome = failure ? kSchedulerFailed : result.ok ? kFinished : kStopped;
  detail::mpi_check(MPI_Bcast(&outcome, 1, MPI_INT, 0, x.control), "MPI_Bcast of the outcome",
                    detail::kExecutive);
  result.ok = outcome == kFinished;
  x.services.reset();
  x.comm_cache.clear();
  detail::mpi_check(MPI_Comm_free(&x.creation), "MPI_Comm_free (creation)", detail::kExecutive);
  detail::mpi_check(MPI_Comm_free(&x.control), "MPI_Comm_free (control)", detail::kExecutive);
  if (failure) std::rethrow_exception(failure);
  // A failed scheduler is an error on every rank, not only on rank 0: the callers then all end
  // the job together (dist::abort_job). Were the workers to return and finalise while rank 0
  // aborts, Open MPI 4.1's mpirun can hang or crash in its own teardown (seen once in CI; a
  // plain-MPI reproduction hung 2 runs in 50 under load, every process gone).
  if (outcome == kSchedulerFailed)
    throw Error(detail::kExecutive,
                "the scheduler on rank 0 failed (its message says why); this rank stops with it");
  return result;
}

}  // namespace exadnn::flow
