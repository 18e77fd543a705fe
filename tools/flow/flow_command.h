// `exadnn flow run|check|graph FILE.yaml`: the workflow engine's command line.
#pragma once

#include <CLI/CLI.hpp>

#include <string>

namespace exadnn::cli {

/// The options of `exadnn flow ...`, filled by CLI11.
struct FlowCommand {
  CLI::App* flow = nullptr;   ///< `exadnn flow`
  CLI::App* run = nullptr;    ///< `exadnn flow run FILE` (under mpirun)
  CLI::App* check = nullptr;  ///< `exadnn flow check FILE [--ranks P]`
  CLI::App* graph = nullptr;  ///< `exadnn flow graph FILE [--dot]`
  std::string file;           ///< the control file
  std::string timeline;       ///< run: where the timeline goes (overrides the file's `timeline`)
  bool verbose = false;       ///< run: a line per finished task
  int ranks = 0;              ///< check: the job size to check against (0: not checked)
  bool dot = false;           ///< graph: Graphviz DOT instead of text
};

/// Adds `flow` and its subcommands to `app`; the returned object is filled when parsed.
std::unique_ptr<FlowCommand> add_flow_command(CLI::App& app);

/// Runs the parsed `exadnn flow` subcommand; returns the process exit code (0 ok, 1 a module
/// failed and stopped the workflow, 2 the control file has problems).
int run_flow_command(const FlowCommand& command);

}  // namespace exadnn::cli
