// A worker rank of the Executive: takes tasks from the scheduler, makes each module instance its
// own communicator over exactly its ranks, runs the module function, and reports how it ended.
#include <cstring>
#include <map>

#include "exadnn/dist/mpi_interop.h"
#include "exadnn/flow/module.h"
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
  MPI_Comm_group(x.creation, &all);
  MPI_Group_incl(all, static_cast<int>(ranks.size()), ranks.data(), &mine);
  MPI_Comm made = MPI_COMM_NULL;
  const int rc = MPI_Comm_create_group(x.creation, mine, static_cast<int>(task % 32000), &made);
  MPI_Group_free(&mine);
  MPI_Group_free(&all);
  EXADNN_CHECK(rc == MPI_SUCCESS && made != MPI_COMM_NULL, "flow Executive",
               "MPI_Comm_create_group failed for task ", task);
  dist::Communicator comm = dist::from_mpi(made);
  MPI_Comm_free(&made);
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

void run_task(ExecutiveSetup& x, const Assignment& a, std::map<int, ModuleFn>& functions,
              int64_t t0) {
  const ControlFile& cf = *x.file;
  const ModuleSpec& spec = cf.modules.at(a.module);
  DoneHeader done;
  done.task = a.task;
  done.rank = x.rank;
  std::string error;
  done.start_us = static_cast<double>(now_us() - t0);
  try {
    const Placement* mine = placement_of(a, a.module);
    EXADNN_CHECK(mine, "flow Executive", "task ", a.task, " does not place its own module");
    dist::Communicator comm = task_comm(x, *mine, a.task);
    Args args = spec.args;
    if (spec.is_ensemble)
      for (const auto& [key, value] : spec.ensemble.at(a.instance)) args[key] = value;
    place_channels(x, a);
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
  x.services->channels.clear();
  std::string message(sizeof(DoneHeader), '\0');
  std::memcpy(message.data(), &done, sizeof(DoneHeader));
  message += error.substr(0, 60000);  // the scheduler's buffer holds 64 KiB
  MPI_Send(message.data(), static_cast<int>(message.size()), MPI_BYTE, 0, kDoneTag, x.control);
}

}  // namespace

void run_worker(ExecutiveSetup& x) {
  std::map<int, ModuleFn> functions;  // resolved once per module
  std::vector<int64_t> words(16 + 4 * static_cast<size_t>(x.size));
  for (;;) {
    MPI_Request request = MPI_REQUEST_NULL;
    MPI_Status status;
    MPI_Irecv(words.data(), static_cast<int>(words.size()), MPI_INT64_T, 0, kAssignTag, x.control,
              &request);
    wait_politely(request, &status);
    int count = 0;
    MPI_Get_count(&status, MPI_INT64_T, &count);
    EXADNN_CHECK(count >= 2, "flow Executive", "malformed message from the scheduler");
    if (words[0] == kStop) return;
    run_task(x, unpack_assignment({words.begin(), words.begin() + count}), functions, x.t0);
  }
}

}  // namespace exadnn::flow::detail
