// Uses the installed workflow engine (no MPI job needed): registers a module and parses a control
// file that runs it; exits non-zero on a wrong answer.
#include <exadnn/flow/control_file.h>
#include <exadnn/flow/module.h>

#include <cstdio>

namespace {
void simulate(exadnn::flow::ModuleContext&) {}
EXADNN_FLOW_MODULE(consumer_simulate, simulate);
}  // namespace

int main() {
  const exadnn::flow::ControlFile file = exadnn::flow::parse_control_file(
      "modules:\n  a: {run: consumer_simulate}\n"
      "workflow:\n  iterations: 3\n  groups:\n    - {name: g, modules: [a]}\n",
      "flow_consumer", 2);
  if (file.modules.size() != 1 || file.iterations != 3) {
    std::printf("wrong control file: %zu modules, %d iterations\n", file.modules.size(),
                file.iterations);
    return 1;
  }
  std::printf("flow consumer ok: %zu module, %d iterations\n", file.modules.size(),
              file.iterations);
  return 0;
}
