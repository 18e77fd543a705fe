// The Executive's roles: what rank 0 (the scheduler) and the worker ranks run (internal).
#pragma once

#include <mpi.h>

#include <map>
#include <memory>
#include <vector>

#include "exadnn/flow/executive.h"
#include "flow/rank_services.h"

namespace exadnn::flow::detail {

/// What every role of a run shares.
struct ExecutiveSetup {
  const ControlFile* file = nullptr;
  RunOptions options;
  MPI_Comm control = MPI_COMM_NULL;  ///< scheduler <-> worker messages (a duplicate of the job's)
  MPI_Comm creation =
      MPI_COMM_NULL;  ///< parent of the instances' communicators (another duplicate)
  const dist::Communicator* job = nullptr;  ///< the job, for abort()
  int rank = 0;
  int size = 0;
  int workers = 0;  ///< worker ranks are 1 .. workers
  int64_t t0 = 0;   ///< steady-clock microseconds when the run began (after a barrier)
  std::shared_ptr<RankServices> services;
  /// Worker: instance communicators kept for reuse, by rank list (see CommMode).
  std::map<std::vector<int>, dist::Communicator> comm_cache;
};

/// Rank 0: schedules every task, then stops the workers (and the tuple-space servers).
RunResult run_scheduler(ExecutiveSetup& setup);
/// Tells every worker to return from run_worker (`ok`: how the run ended).
void stop_workers(const ExecutiveSetup& setup, bool ok);
/// Writes the timeline as Chrome-trace JSON to `path` (an Error if it cannot).
void write_timeline(const std::string& path, const std::vector<TimelineEvent>& events);
/// Ranks 1 .. workers: runs the tasks the scheduler assigns until it says stop.
void run_worker(ExecutiveSetup& setup);

}  // namespace exadnn::flow::detail
