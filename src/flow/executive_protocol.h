// The Executive's messages between the scheduler (rank 0) and the workers, on the Executive's own
// duplicate of the job's communicator (internal to the flow library).
//
// Scheduler -> worker, tag kAssignTag: int64 words
//   a task: kTask, task id, module, instance, iteration, gang size G, then for each of the G
//           modules: module, comm mode, rank count n, the n ranks
//   stop:   kStop, ok
// Worker -> scheduler, tag kDoneTag: bytes = DoneHeader then the error text (empty if it ran).
#pragma once

#include <mpi.h>

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace exadnn::flow::detail {

/// Where the Executive's errors come from (exadnn::Error's `where`).
inline constexpr const char* kExecutive = "flow Executive";

constexpr int kAssignTag = 1;  ///< scheduler -> worker
constexpr int kDoneTag = 2;    ///< worker -> scheduler
constexpr int64_t kTask = 0;   ///< an assignment
constexpr int64_t kStop = 1;   ///< no more tasks

/// Where each module of a gang runs: module index and its ranks (of the job), in module-local
/// order.
struct Placement {
  int module = 0;
  std::vector<int> ranks;
  int comm = 0;  ///< the instance's communicator: a CommMode
};

/// How a worker gets an instance's communicator. The scheduler mirrors the workers' caches (keyed
/// by rank list), so every rank of an instance makes the same choice.
enum CommMode : int {
  kCommCreate = 0,  ///< make a fresh one, drop it after the task (the cache is full)
  kCommReuse = 1,   ///< the cached one for these ranks (the last instance on them ended cleanly)
  kCommCache = 2,   ///< make a fresh one and cache it for these ranks (replacing any cached one)
};

/// One task as the scheduler sends it.
struct Assignment {
  int64_t task = 0;
  int module = 0;
  int instance = 0;
  int iteration = 0;
  /// Every module of the task's gang (just this one for an ensemble instance).
  std::vector<Placement> gang;
};

/// A worker's report that its part of a task ended.
struct DoneHeader {
  int64_t task = 0;
  int64_t rank = 0;
  int64_t failed = 0;
  double start_us = 0;
  double end_us = 0;
};

/// Packs a task assignment.
std::vector<int64_t> pack_assignment(const Assignment& a);
/// Unpacks a task assignment (words[0] == kTask).
Assignment unpack_assignment(const std::vector<int64_t>& words);

/// Waits for `request` without pinning a core: tests it in a tight loop for a short while, then
/// sleeps between tests (up to `max_sleep_us`), so idle ranks leave the cores to busy ones;
/// `idle` (if any) runs before each sleep. Returns false if `deadline_us` (steady-clock
/// microseconds; 0 = none) passed first; a failed MPI_Test is an Error naming it.
bool wait_politely(MPI_Request& request, MPI_Status* status, int64_t deadline_us = 0,
                   int max_sleep_us = 200, const std::function<void()>& idle = nullptr);
/// Steady-clock microseconds.
int64_t now_us();

}  // namespace exadnn::flow::detail
