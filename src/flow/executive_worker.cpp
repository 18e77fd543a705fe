// A worker rank of the Executive: takes tasks from the scheduler, makes each module instance its
// own communicator over exactly its ranks, runs the module function, and reports how it ended.
// When an instance ends, ok or not, its channels are ended too: the sending ends are closed with
// how it ended (a receiver waiting on this rank gets ChannelClosed naming it instead of waiting
// forever), and the receiving ends are drained up to every sender's close, so nothing of this task
// is left on a channel for the next one. Draining waits for the senders to end, so it never holds
// the worker: it goes on while the worker waits for its next task, and is finished only before a
// task on the same channel starts here (by then every sender of the last one has reported, so its
// close is on its way) and before the run ends.
#include <algorithm>
#include <cstdio>
#include <cstring>
#include <map>
#include <memory>

#include "exadnn/dist/mpi_interop.h"
#include "exadnn/flow/channel.h"
#include "exadnn/flow/module.h"
#include "flow/commlib_mpi.h"
#include "flow/executive_protocol.h"
#include "flow/executive_roles.h"

namespace exadnn::flow::detail {

namespace {

// The instance's communicator: its ranks (of the job) in the given order. One rank: a duplicate
// of MPI_COMM_SELF; more: MPI_Comm_create_group, collective only over those ranks.
dist::Communicator instance_comm(const ExecutiveSetup& x, const std::vector<int>& ranks,
                                 int64_t task) {
  if (ranks.size() == 1) return dist::from_mpi(MPI_COMM_SELF);
  MPI_Group all = MPI_GROUP_NULL, mine = MPI_GROUP_NULL;
  mpi_check(MPI_Comm_group(x.creation, &all), "MPI_Comm_group", kExecutive);
  const int incl = MPI_Group_incl(all, static_cast<int>(ranks.size()), ranks.data(), &mine);
  if (incl != MPI_SUCCESS) {
    MPI_Group_free(&all);  // (the error reported is the one that matters)
    throw_mpi_error(incl, "MPI_Group_incl", kExecutive);
  }
  MPI_Comm made = MPI_COMM_NULL;
  const int rc = MPI_Comm_create_group(x.creation, mine, static_cast<int>(task % 32000), &made);
  const int freed_mine = MPI_Group_free(&mine);
  const int freed_all = MPI_Group_free(&all);
  if (rc != MPI_SUCCESS)
    throw_mpi_error(rc, exadnn::detail::cat("MPI_Comm_create_group for task ", task), kExecutive);
  mpi_check(freed_mine, "MPI_Group_free", kExecutive);
  mpi_check(freed_all, "MPI_Group_free", kExecutive);
  EXADNN_CHECK(made != MPI_COMM_NULL, kExecutive, "MPI_Comm_create_group for task ", task,
               " left this rank out of the task's communicator");
  dist::Communicator comm = dist::from_mpi(made);
  mpi_check(MPI_Comm_free(&made), "MPI_Comm_free", kExecutive);
  return comm;
}

// The placement of `module` in the task's gang (nullptr when it is not there).
const Placement* placement_of(const Assignment& a, int module) {
  for (const auto& p : a.gang)
    if (p.module == module) return &p;
  return nullptr;
}

// The ranks of `module` in the task's gang (nullptr when it is not there).
const std::vector<int>* ranks_of(const Assignment& a, int module) {
  const Placement* p = placement_of(a, module);
  return p ? &p->ranks : nullptr;
}

// The instance's communicator as the scheduler says: made afresh, or the one cached for its ranks.
dist::Communicator task_comm(ExecutiveSetup& x, const Placement& p, int64_t task) {
  auto& cache = x.comm_cache;
  if (p.comm == kCommReuse) {
    const auto it = cache.find(p.ranks);
    EXADNN_CHECK(it != cache.end(), "flow Executive", "task ", task,
                 ": no cached communicator for its ranks (scheduler and worker disagree)");
    return it->second;
  }
  dist::Communicator comm = instance_comm(x, p.ranks, task);
  if (p.comm == kCommCache) cache.insert_or_assign(p.ranks, comm);
  return comm;
}

// Places the channels that touch the task's module, with both ends' ranks.
void place_channels(const ExecutiveSetup& x, const Assignment& a) {
  const ControlFile& cf = *x.file;
  auto& services = *x.services;
  services.channels.clear();
  services.channel_ends.clear();
  const std::string& me = cf.modules[a.module].name;
  for (size_t c = 0; c < cf.channels.size(); ++c) {
    const ChannelSpec& spec = cf.channels[c];
    if (spec.from != me && spec.to != me) continue;
    const auto* from = ranks_of(a, static_cast<int>(cf.find_module(spec.from) - cf.modules.data()));
    const auto* to = ranks_of(a, static_cast<int>(cf.find_module(spec.to) - cf.modules.data()));
    EXADNN_CHECK(from && to, "flow Executive", "channel '", spec.name,
                 "' joins modules that were not placed together");
    services.channel_ends[spec.name] = ChannelEnds{spec.name, static_cast<int>(c), *from, *to};
  }
}

// Receiving ends of ended tasks still being drained, and closes still being sent.
class Drains {
 public:
  explicit Drains(int rank) : rank_(rank) {}
  void add(std::unique_ptr<Channel> channel) { channels_.push_back(std::move(channel)); }
  void add(dist::Work close) { closes_.push_back(std::move(close)); }

  // Takes what has arrived, without waiting.
  void progress() {
    std::erase_if(channels_,
                  [&](auto& ch) { return guarded([&] { return ch->drain_arrived(); }); });
    std::erase_if(closes_, [&](dist::Work& w) { return guarded([&] { return w.test(); }); });
  }

  // Drains to the end the channels named in `ends` (every one when null), waiting for their
  // senders' closes.
  void finish(const std::map<std::string, ChannelEnds>* ends) {
    std::erase_if(channels_, [&](auto& ch) {
      if (ends && !ends->count(ch->name())) return false;
      return guarded([&] { return ch->drain() >= 0; });
    });
    if (!ends)
      for (auto& w : closes_) guarded([&] { return w.wait(), true; });
  }

 private:
  // Runs `step`; an error (which would leave a channel out of step) is reported and the end
  // dropped.
  template <class F>
  bool guarded(F&& step) {
    try {
      return step();
    } catch (const std::exception& e) {
      std::fprintf(stderr, "exadnn flow: rank %d: ending a channel of a task: %s\n", rank_,
                   e.what());
      return true;
    }
  }

  int rank_;
  std::vector<std::unique_ptr<Channel>> channels_;
  std::vector<dist::Work> closes_;
};

// Ends the task's channels on this rank: closes the sending ends the module left open, telling
// the receivers `reason`, and hands the receiving ends to `drains`.
void end_channels(ExecutiveSetup& x, Drains& drains, const std::string& reason, bool failed) {
  auto& open = x.services->channels;
  for (const auto& [name, ends] : x.services->channel_ends) {
    auto it = open.find(name);
    if (it == open.end())
      it = open.emplace(name, std::make_unique<Channel>(*x.services->channel_comm, ends)).first;
    Channel& ch = *it->second;
    if (ch.is_sender() && !ch.is_closed()) drains.add(ch.close(reason, failed));
    if (ch.is_receiver()) drains.add(std::move(it->second));
  }
  open.clear();
  x.services->channel_ends.clear();
}

void run_task(ExecutiveSetup& x, const Assignment& a, std::map<int, ModuleFn>& functions,
              Drains& drains, int64_t t0) {
  const ControlFile& cf = *x.file;
  const ModuleSpec& spec = cf.modules.at(a.module);
  DoneHeader done;
  done.task = a.task;
  done.rank = x.rank;
  std::string error;
  done.start_us = static_cast<double>(now_us() - t0);
  try {
    // Channels first: however the instance ends, its peers on them are told.
    place_channels(x, a);
    drains.finish(&x.services->channel_ends);
    const Placement* mine = placement_of(a, a.module);
    EXADNN_CHECK(mine, "flow Executive", "task ", a.task, " does not place its own module");
    dist::Communicator comm = task_comm(x, *mine, a.task);
    Args args = spec.args;
    if (spec.is_ensemble)
      for (const auto& [key, value] : spec.ensemble.at(a.instance)) args[key] = value;
    auto fn = functions.find(a.module);
    if (fn == functions.end()) fn = functions.emplace(a.module, resolve_module(spec.run)).first;
    done.start_us = static_cast<double>(now_us() - t0);
    ModuleContext ctx(spec, a.instance, a.iteration, std::move(comm), std::move(args), x.services);
    fn->second(ctx);
  } catch (const std::exception& e) {
    done.failed = 1;
    error = e.what();
  } catch (...) {
    done.failed = 1;
    error = "an exception that is not a std::exception";
  }
  done.end_us = static_cast<double>(now_us() - t0);
  // The same words as the scheduler's failure report, for the receivers of this rank's sends.
  const std::string who = exadnn::detail::cat("module '", spec.name, "' instance ", a.instance,
                                              " iteration ", a.iteration);
  try {
    end_channels(x, drains,
                 done.failed
                     ? exadnn::detail::cat(who, " failed on rank ", x.rank, ": ", error)
                     : exadnn::detail::cat(who, " ended on rank ", x.rank, " (sends no more)"),
                 done.failed != 0);
  } catch (const std::exception& e) {
    error += (error.empty() ? "" : "; ") + std::string("closing its channels: ") + e.what();
    done.failed = 1;
  }
  std::string message(sizeof(DoneHeader), '\0');
  std::memcpy(message.data(), &done, sizeof(DoneHeader));
  message += error.substr(0, 60000);  // the scheduler's buffer holds 64 KiB
  const int rc =
      MPI_Send(message.data(), static_cast<int>(message.size()), MPI_BYTE, 0, kDoneTag, x.control);
  if (rc != MPI_SUCCESS)
    throw_mpi_error(rc, exadnn::detail::cat("MPI_Send of the report of task ", a.task), kExecutive);
}

}  // namespace

void run_worker(ExecutiveSetup& x) {
  std::map<int, ModuleFn> functions;  // resolved once per module
  Drains drains(x.rank);
  std::vector<int64_t> words(16 + 4 * static_cast<size_t>(x.size));
  for (;;) {
    MPI_Request request = MPI_REQUEST_NULL;
    MPI_Status status;
    mpi_check(MPI_Irecv(words.data(), static_cast<int>(words.size()), MPI_INT64_T, 0, kAssignTag,
                        x.control, &request),
              "MPI_Irecv of a task assignment", kExecutive);
    wait_politely(request, &status, 0, 200, [&] { drains.progress(); });
    int count = 0;
    mpi_check(MPI_Get_count(&status, MPI_INT64_T, &count), "MPI_Get_count of a task assignment",
              kExecutive);
    EXADNN_CHECK(count >= 2, "flow Executive", "malformed message from the scheduler");
    if (words[0] == kStop) {
      drains.finish(nullptr);  // every task has reported: every close is on its way
      return;
    }
    run_task(x, unpack_assignment({words.begin(), words.begin() + count}), functions, drains, x.t0);
  }
}

}  // namespace exadnn::flow::detail
