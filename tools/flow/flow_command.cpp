// `exadnn flow run|check|graph`: loads the control file, then validates it (check), prints its DAG
// (graph) or runs it with the Executive (run, one MPI program under mpirun).
#include "flow_command.h"

#include <cstdio>

#include "exadnn/dist/communicator.h"
#include "exadnn/dist/environment.h"
#include "exadnn/flow/control_file.h"
#include "exadnn/flow/executive.h"

namespace exadnn::cli {

std::unique_ptr<FlowCommand> add_flow_command(CLI::App& app) {
  auto c = std::make_unique<FlowCommand>();
  c->flow = app.add_subcommand("flow",
                               "workflows: run, check or draw a control file (docs/workflows.md)");
  c->flow->require_subcommand(1);
  c->run = c->flow->add_subcommand("run", "run a workflow: mpirun -np P exadnn flow run FILE.yaml");
  c->check = c->flow->add_subcommand("check", "validate a control file without running it");
  c->graph = c->flow->add_subcommand("graph", "print the workflow's DAG of groups and modules");
  for (auto* sub : {c->run, c->check, c->graph})
    sub->add_option("file", c->file, "control file (YAML)")->required()->check(CLI::ExistingFile);
  c->run->add_option("--timeline", c->timeline, "write the Chrome-trace timeline here");
  c->run->add_flag("--verbose", c->verbose, "print a line per finished task");
  c->check->add_option("--ranks", c->ranks, "also check against a job of this many ranks")
      ->check(CLI::PositiveNumber);
  c->graph->add_flag("--dot", c->dot, "Graphviz DOT instead of text");
  return c;
}

namespace {

int run_workflow_command(const FlowCommand& c) {
  dist::Environment env;
  const dist::Communicator job = dist::Communicator::world();
  flow::ControlFile file;
  try {
    file = flow::load_control_file(c.file, job.size());
  } catch (const Error& e) {
    // Every rank read the same file and found the same problems: rank 0 says so, all exit.
    if (job.rank() == 0) std::fprintf(stderr, "%s\n", e.what());
    return 2;
  }
  flow::RunResult result;
  try {
    result = flow::run_workflow(file, job, {c.timeline, c.verbose});
  } catch (const std::exception& e) {
    job.abort(e.what(), 1);  // what() starts with "exadnn: "
  }
  if (job.rank() != 0) return result.ok ? 0 : 1;
  std::printf("workflow %s: %lld tasks in %.3f s, %zu failure%s\n",
              result.ok ? "finished" : "stopped", static_cast<long long>(result.tasks),
              result.seconds, result.failures.size(), result.failures.size() == 1 ? "" : "s");
  for (const auto& f : result.failures) std::fprintf(stderr, "  failed: %s\n", f.c_str());
  return result.ok ? 0 : 1;
}

}  // namespace

int run_flow_command(const FlowCommand& c) {
  if (c.run->parsed()) return run_workflow_command(c);
  try {
    const auto file =
        flow::load_control_file(c.file, c.ranks > 0 ? std::optional<int>(c.ranks) : std::nullopt);
    if (c.check->parsed()) {
      std::printf("%s: ok (%zu modules, %zu groups, %d iteration%s; needs at least %d ranks)\n",
                  c.file.c_str(), file.modules.size(), file.groups.size(), file.iterations,
                  file.iterations == 1 ? "" : "s", file.min_ranks());
    } else {
      std::printf("%s", c.dot ? flow::graph_dot(file).c_str() : flow::describe_graph(file).c_str());
    }
  } catch (const flow::ControlFileError& e) {
    std::fprintf(stderr, "%s\n", e.what());
    return 2;
  }
  return 0;
}

}  // namespace exadnn::cli
