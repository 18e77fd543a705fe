// Executive overhead per ensemble task (issue 7; goal <= 1 ms per task, Parsl reports ~5 ms):
// a workflow of one ensemble of `tasks` empty 1-rank instances, run `reps` times under
// `mpirun -np P`. Each task costs the scheduler's dispatch message, the worker's instance
// communicator (a duplicate of MPI_COMM_SELF made into an exadnn Communicator), the module call
// and the report back. Prints, per run and as the median over runs:
//   wall / tasks             the throughput cost: time per task with all workers busy
//   wall * workers / tasks   the per-task latency cost on one worker (the overhead a task pays)
// With ranks > 1 each instance spans that many ranks and its communicator comes from
// MPI_Comm_create_group over them.
//   usage: mpirun -np P exadnn_flow_executive_bench [tasks=2000] [reps=5] [ranks=1]
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "exadnn/dist/communicator.h"
#include "exadnn/dist/environment.h"
#include "exadnn/flow/control_file.h"
#include "exadnn/flow/executive.h"
#include "exadnn/flow/module.h"

namespace {
void empty_task(exadnn::flow::ModuleContext&) {}
EXADNN_FLOW_MODULE(bench_empty, empty_task);
}  // namespace

int main(int argc, char** argv) {
  exadnn::dist::Environment env(&argc, &argv);
  const auto world = exadnn::dist::Communicator::world();
  const int tasks = argc > 1 ? std::atoi(argv[1]) : 2000;
  const int reps = argc > 2 ? std::atoi(argv[2]) : 5;
  const int ranks = argc > 3 ? std::atoi(argv[3]) : 1;
  const std::string yaml = "modules:\n  empty: {run: bench_empty, ranks: " + std::to_string(ranks) +
                           ", ensemble: {instances: " + std::to_string(tasks) + "}}\n";
  const auto file = exadnn::flow::parse_control_file(yaml, "bench", world.size());
  const int workers = world.size() - 1;
  exadnn::flow::run_workflow(file, world);  // warm-up
  std::vector<double> per_task, per_task_worker;
  for (int r = 0; r < reps; ++r) {
    const auto result = exadnn::flow::run_workflow(file, world);
    if (world.rank() != 0) continue;
    per_task.push_back(result.seconds / tasks * 1e3);
    per_task_worker.push_back(result.seconds * workers / tasks * 1e3);
    std::printf("run %d: %d tasks on %d workers in %.3f s: %.4f ms/task, %.4f ms/task/worker\n", r,
                tasks, workers, result.seconds, per_task.back(), per_task_worker.back());
  }
  if (world.rank() == 0) {
    auto median = [](std::vector<double> v) {
      std::sort(v.begin(), v.end());
      return v[v.size() / 2];
    };
    std::printf(
        "np %d (%d workers), %d empty tasks of %d rank%s, median of %d runs: %.4f ms per task "
        "(wall / tasks), "
        "%.4f ms per task per worker (wall * workers / tasks)\n",
        world.size(), workers, tasks, ranks, ranks == 1 ? "" : "s", reps, median(per_task),
        median(per_task_worker));
  }
  return 0;
}
