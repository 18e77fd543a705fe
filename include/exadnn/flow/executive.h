// The Executive: runs a validated control file as one MPI program.
//
// Roles. Rank 0 of the job is the scheduler: it runs no module, walks the DAG of groups (once per
// workflow iteration), and hands tasks to the worker ranks as they free up. The last K ranks serve
// the tuple space when the file asks for one (`tuple_space: {servers: K}`); every other rank is a
// worker. A task is either a group's fixed modules together (a gang: they start at once, so
// channels between them connect) or one ensemble instance; each module instance gets its own
// communicator made over exactly its ranks (MPI_Comm_create_group, collective only over them), so
// ensemble members start and end without involving other ranks. Workers keep these communicators:
// the next instance on the same ranks reuses one (made afresh after a failure on them), so a module
// must receive every message sent to it on its communicator before it returns.
//
// Errors. An instance that throws is reported with its module name, instance, iteration and rank.
// With `on_error: stop` (the default) no new task starts, running tasks get `stop_grace` to end,
// and then every rank returns a RunResult whose ok is false (or, if a task does not end in time —
// e.g. its peers wait in a collective for the rank that threw — the job is aborted with the
// message). With `on_error: continue` the failure is recorded and the workflow carries on.
#pragma once

#include <chrono>
#include <cstdint>
#include <string>
#include <vector>

#include "exadnn/dist/communicator.h"
#include "exadnn/flow/control_file.h"

namespace exadnn::flow {

/// Options of run_workflow.
struct RunOptions {
  /// Chrome-trace JSON written here by rank 0 (overrides the file's; "" = the file's).
  std::string timeline;
  bool verbose = false;  ///< rank 0 prints a line per task as it ends
  /// How long running tasks may take to end after a stopping failure before the job is aborted
  /// (default: EXADNN_FLOW_STOP_GRACE seconds, or 30 s).
  std::chrono::milliseconds stop_grace{0};
};

/// One module instance on one rank, as it ran (times in microseconds since the run started).
struct TimelineEvent {
  std::string module;      ///< module name
  std::string group;       ///< its group
  int instance = 0;        ///< ensemble instance (0 if not an ensemble)
  int iteration = 0;       ///< workflow iteration
  int rank = 0;            ///< rank of the job it ran on
  double start_us = 0;     ///< start, since the run began (the rank's own clock)
  double duration_us = 0;  ///< how long the module function ran
  bool failed = false;     ///< it threw
  std::string error;       ///< what it threw
};

/// How a run ended.
struct RunResult {
  /// No module with on_error: stop failed (every rank).
  bool ok = true;
  /// Every failure, "module 'x' instance i iteration k failed on rank r: what" (rank 0).
  std::vector<std::string> failures;
  /// Every instance on every rank, in the order they ended (rank 0).
  std::vector<TimelineEvent> timeline;
  /// Tasks dispatched (rank 0).
  int64_t tasks = 0;
  /// Wall time of the run in seconds (rank 0).
  double seconds = 0;
};

/// Runs `file` over the ranks of `job` (collective: every rank of `job` calls it with the same
/// file). Throws exadnn::Error (on every rank) if the job does not have the ranks the file needs.
/// An MPI call of the Executive that fails throws an Error naming it on that rank only: the
/// others cannot be told, so the caller ends the job with it (dist::abort_job), as `exadnn flow
/// run` does. When the scheduler itself fails (rank 0), every worker is released and throws an
/// Error too, so that every rank ends the job the same way.
RunResult run_workflow(const ControlFile& file, const dist::Communicator& job,
                       const RunOptions& options = {});

/// The timeline as Chrome trace-event JSON (chrome://tracing, Perfetto): one complete event
/// ("ph": "X") per instance and rank, pid 0, tid = rank.
std::string timeline_json(const std::vector<TimelineEvent>& events);
/// Reads back a timeline written by timeline_json (for tests and tools).
std::vector<TimelineEvent> parse_timeline_json(const std::string& json);

}  // namespace exadnn::flow
