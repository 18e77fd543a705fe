// The Executive's scheduler (rank 0): walks the DAG of groups once per workflow iteration,
// queues each released group's tasks (its fixed modules as one gang, then one task per ensemble
// instance), and hands the head of the queue the lowest free worker ranks as soon as enough are
// free (first come, first served: a large gang is never overtaken and starved by small tasks).
// It also tells the tuple-space servers which ranks may still put, so that a wait no put can
// answer any more (its producers all ended, ok or failed) ends instead of hanging.
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <map>
#include <optional>
#include <set>

#include "exadnn/flow/module.h"
#include "flow/commlib_mpi.h"
#include "flow/executive_protocol.h"
#include "flow/executive_roles.h"

namespace exadnn::flow::detail {

namespace {

// A task waiting for ranks: a gang of fixed modules, or one ensemble instance.
struct Pending {
  int group = 0;
  std::vector<int> modules;  // the gang's modules, or the one ensemble module
  int instance = 0;
};

// A task running: which module each of its ranks that has not reported yet runs, and how many
// have not reported.
struct Running {
  int group = 0;
  int instance = 0;
  std::map<int, int> module_of_rank;
  std::map<int, std::vector<int>> ranks_of_module;  // module -> its ranks in this task
  int outstanding = 0;
};

class Scheduler {
 public:
  explicit Scheduler(ExecutiveSetup& x) : x_(x), cf_(*x.file) {
    for (int r = 1; r <= x.workers; ++r) free_.insert(r);
  }

  RunResult run() {
    const int64_t began = now_us();
    for (int it = 0; it < cf_.iterations && !stopping_; ++it) run_iteration(it);
    finish_stopping_tasks();
    stop_workers(x_, result_.ok);
    result_.seconds = static_cast<double>(now_us() - began) * 1e-6;
    return std::move(result_);
  }

 private:
  int ranks_of(const ModuleSpec& m) const { return m.ranks == 0 ? x_.workers : m.ranks; }

  void run_iteration(int iteration) {
    iteration_ = iteration;
    const int groups = static_cast<int>(cf_.groups.size());
    state_.assign(groups, 0);  // 0 waiting, 1 released, 2 done
    tasks_left_.assign(groups, 0);
    int done = 0;
    while (done < groups && !stopping_) {
      done += release_ready_groups();
      if (done == groups) break;
      dispatch();
      EXADNN_CHECK(!running_.empty(), "flow Executive",
                   "no task can start: the next one needs more ranks than ", x_.workers,
                   " workers");
      announce_producers(producers());
      done += receive_one(0);
    }
  }

  // Releases every waiting group whose dependencies are done; returns how many were empty.
  int release_ready_groups() {
    int finished = 0;
    for (bool again = true; again;) {
      again = false;
      for (int g : cf_.group_order()) {
        if (state_[g] != 0 || !dependencies_done(g)) continue;
        state_[g] = 1;
        Pending gang{g, {}, 0};
        std::vector<Pending> instances;
        for (const auto& name : cf_.groups[g].modules) {
          const int m = static_cast<int>(cf_.find_module(name) - cf_.modules.data());
          if (!cf_.modules[m].is_ensemble) {
            gang.modules.push_back(m);
            continue;
          }
          for (int i = 0; i < cf_.modules[m].instances(); ++i)
            instances.push_back(Pending{g, {m}, i});
        }
        if (!gang.modules.empty()) queue_.push_back(gang);
        for (auto& p : instances) queue_.push_back(std::move(p));
        tasks_left_[g] = static_cast<int>(instances.size()) + (gang.modules.empty() ? 0 : 1);
        if (tasks_left_[g] == 0) {
          state_[g] = 2;
          ++finished;
          again = true;  // its dependents may be ready now
        }
      }
    }
    return finished;
  }

  bool dependencies_done(int g) const {
    for (const auto& dep : cf_.groups[g].after)
      if (state_[cf_.find_group(dep) - cf_.groups.data()] != 2) return false;
    return true;
  }

  // Starts queued tasks, in order, while the head fits in the free ranks.
  void dispatch() {
    while (!queue_.empty()) {
      const Pending& head = queue_.front();
      int need = 0;
      for (int m : head.modules) need += ranks_of(cf_.modules[m]);
      if (need > static_cast<int>(free_.size())) return;
      Assignment a;
      a.task = next_task_++;
      a.instance = head.instance;
      a.iteration = iteration_;
      Running run{head.group, head.instance, {}, {}, need};
      for (int m : head.modules) {
        Placement p{m, {}};
        for (int k = 0; k < ranks_of(cf_.modules[m]); ++k) {
          p.ranks.push_back(*free_.begin());
          run.module_of_rank[*free_.begin()] = m;
          free_.erase(free_.begin());
        }
        p.comm = comm_mode(p.ranks);
        run.ranks_of_module[m] = p.ranks;
        a.gang.push_back(std::move(p));
      }
      // Before the task can ask the tuple space anything: its ranks may put again.
      announce_producers(std::nullopt);
      for (const auto& p : a.gang) {
        a.module = p.module;
        const auto words = pack_assignment(a);
        for (int r : p.ranks) {
          const int rc = MPI_Send(words.data(), static_cast<int>(words.size()), MPI_INT64_T, r,
                                  kAssignTag, x_.control);
          if (rc != MPI_SUCCESS)
            throw_mpi_error(rc, exadnn::detail::cat("MPI_Send of task ", a.task, " to rank ", r),
                            kExecutive);
        }
      }
      running_.emplace(a.task, std::move(run));
      ++result_.tasks;
      queue_.pop_front();
    }
  }

  // The ranks that may still put in the tuple space, as TupleSpace::set_producers takes them:
  // once nothing is queued, the ranks of running tasks (a group not yet released waits, through
  // its `after`, for a running task, so it cannot answer that task's waits; a later iteration
  // starts after this one). Sets of two or more ranks end no wait, so they go out as nullopt.
  std::optional<std::vector<int>> producers() const {
    if (!queue_.empty()) return std::nullopt;
    std::vector<int> ranks;
    for (const auto& [task, run] : running_)
      for (const auto& [rank, module] : run.module_of_rank) ranks.push_back(rank);
    if (ranks.size() > 1) return std::nullopt;
    return ranks;
  }

  // Sends `producers` to the tuple-space servers when it changed (acknowledged: a server has it
  // before any later message of a task reaches it).
  void announce_producers(const std::optional<std::vector<int>>& producers) {
    if (!x_.services->tuple_space || producers == announced_) return;
    x_.services->tuple_space->set_producers(producers);
    announced_ = producers;
  }

  // Whether the ranks' communicator is reused, made and cached, or made for this task only; the
  // workers' caches follow these answers exactly.
  int comm_mode(const std::vector<int>& ranks) {
    if (cached_comms_.count(ranks)) return kCommReuse;
    if (cached_comms_.size() >= kMaxCachedComms) return kCommCreate;
    cached_comms_.insert(ranks);
    return kCommCache;
  }

  // Waits for one worker's report (until `deadline_us`, 0 = none); returns how many groups it
  // finished (0 or 1), or -1 if the deadline passed.
  int receive_one(int64_t deadline_us) {
    // Workers cut error texts to 60 000 bytes, so every report fits.
    std::vector<char>& buffer = report_buffer_;
    MPI_Request request = MPI_REQUEST_NULL;
    MPI_Status status;
    mpi_check(MPI_Irecv(buffer.data(), static_cast<int>(buffer.size()), MPI_BYTE, MPI_ANY_SOURCE,
                        kDoneTag, x_.control, &request),
              "MPI_Irecv of a task report", kExecutive);
    if (!wait_politely(request, &status, deadline_us)) {
      mpi_check(MPI_Cancel(&request), "MPI_Cancel of a task report's receive", kExecutive);
      mpi_check(MPI_Wait(&request, MPI_STATUS_IGNORE), "MPI_Wait of a cancelled receive",
                kExecutive);
      return -1;
    }
    int count = 0;
    mpi_check(MPI_Get_count(&status, MPI_BYTE, &count), "MPI_Get_count of a task report",
              kExecutive);
    EXADNN_CHECK(count >= static_cast<int>(sizeof(DoneHeader)), kExecutive, "task report of ",
                 count, " bytes from rank ", status.MPI_SOURCE, " is too short");
    DoneHeader done;
    std::memcpy(&done, buffer.data(), sizeof(DoneHeader));
    const std::string error(buffer.data() + sizeof(DoneHeader), count - sizeof(DoneHeader));
    return record(done, error);
  }

  int record(const DoneHeader& done, const std::string& error) {
    auto it = running_.find(done.task);
    EXADNN_CHECK(it != running_.end(), "flow Executive", "report for unknown task ", done.task);
    Running& run = it->second;
    const int rank = static_cast<int>(done.rank);
    const ModuleSpec& m = cf_.modules[run.module_of_rank.at(rank)];
    TimelineEvent e{m.name,        cf_.groups[run.group].name,  run.instance,     iteration_, rank,
                    done.start_us, done.end_us - done.start_us, done.failed != 0, error};
    if (e.failed) {
      report_failure(m, e);
      // Its communicator may be out of step (a collective one rank left): made afresh next time.
      cached_comms_.erase(run.ranks_of_module.at(run.module_of_rank.at(rank)));
    }
    if (x_.options.verbose)
      std::printf("[flow] %s instance %d iteration %d on rank %d: %.3f ms%s\n", m.name.c_str(),
                  e.instance, e.iteration, rank, e.duration_us * 1e-3, e.failed ? " (failed)" : "");
    result_.timeline.push_back(std::move(e));
    run.module_of_rank.erase(rank);  // what is left are the ranks still running the task
    free_.insert(rank);
    if (--run.outstanding > 0) return 0;
    const int g = run.group;
    running_.erase(it);
    if (--tasks_left_[g] > 0) return 0;
    state_[g] = 2;
    return 1;
  }

  void report_failure(const ModuleSpec& m, const TimelineEvent& e) {
    const std::string what =
        exadnn::detail::cat("module '", m.name, "' instance ", e.instance, " iteration ",
                            e.iteration, " failed on rank ", e.rank, ": ", e.error);
    result_.failures.push_back(what);
    if (m.on_error == OnError::cont) {
      std::fprintf(stderr, "exadnn flow: %s (on_error: continue, the workflow carries on)\n",
                   what.c_str());
      return;
    }
    std::fprintf(stderr, "exadnn flow: %s (on_error: stop, stopping the workflow)\n", what.c_str());
    if (!stopping_) {
      stopping_ = true;
      result_.ok = false;
      queue_.clear();
      std::chrono::milliseconds grace = x_.options.stop_grace;
      if (grace.count() <= 0) {
        const char* env = std::getenv("EXADNN_FLOW_STOP_GRACE");
        grace =
            std::chrono::milliseconds(static_cast<int64_t>(1000 * (env ? std::atof(env) : 30.0)));
      }
      stop_deadline_ = now_us() + grace.count() * 1000;
      stop_reason_ = what;
    }
  }

  // After a stopping failure: waits for the tasks still running, aborting the job if they do not
  // end within the grace period (their peers may be waiting for the rank that threw).
  void finish_stopping_tasks() {
    while (!running_.empty()) {
      announce_producers(producers());
      if (receive_one(stopping_ ? stop_deadline_ : 0) >= 0) continue;
      std::string left;
      for (const auto& [task, run] : running_)
        for (const auto& [rank, m] : run.module_of_rank)
          left += exadnn::detail::cat(left.empty() ? "" : ", ", "module '", cf_.modules[m].name,
                                      "' on rank ", rank);
      if (!x_.options.timeline.empty()) write_timeline(x_.options.timeline, result_.timeline);
      x_.job->abort(
          exadnn::detail::cat("exadnn flow: stopping the workflow: ", stop_reason_,
                              "; still running after the grace period, aborting the job: ", left),
          1);
    }
  }

  ExecutiveSetup& x_;
  const ControlFile& cf_;
  RunResult result_;
  static constexpr size_t kMaxCachedComms = 256;
  std::set<std::vector<int>> cached_comms_;  // rank lists whose communicator the workers keep
  std::vector<char> report_buffer_ = std::vector<char>(sizeof(DoneHeader) + 64 * 1024);
  std::set<int> free_;
  std::deque<Pending> queue_;
  std::map<int64_t, Running> running_;
  std::vector<int> state_, tasks_left_;
  int iteration_ = 0;
  int64_t next_task_ = 0;
  bool stopping_ = false;
  int64_t stop_deadline_ = 0;
  std::string stop_reason_;
  std::optional<std::vector<int>> announced_;  // what the tuple-space servers were last told
};

}  // namespace

void stop_workers(const ExecutiveSetup& x, bool ok) {
  const int64_t stop[2] = {kStop, ok ? 1 : 0};
  for (int r = 1; r <= x.workers; ++r) {
    const int rc = MPI_Send(stop, 2, MPI_INT64_T, r, kAssignTag, x.control);
    if (rc != MPI_SUCCESS)
      throw_mpi_error(rc, exadnn::detail::cat("MPI_Send of stop to rank ", r), kExecutive);
  }
}

RunResult run_scheduler(ExecutiveSetup& setup) {
  return Scheduler(setup).run();
}

}  // namespace exadnn::flow::detail
