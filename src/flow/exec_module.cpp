// The built-in module `exec`: runs an existing program per instance, as openDIEL runs its
// executables — a first-principles code, a converter, a script. Its arguments come from the control
// file; a non-zero exit status or a signal is the instance's failure, reported (with the end of the
// program's stderr) like any failing module; its standard output is echoed to the job's and can be
// put in the tuple space as the instance's result.
//
//   modules:
//     dft:
//       run: exec
//       args: {program: gpaw, args: "python relax.py --seed {instance}", result: "dft/{instance}",
//              stdin: "", timeout_s: 3600}
//       ensemble: {instances: 8}
//
// args: program (a path, or a name looked up on PATH; required), args (its arguments, split at
// blanks, '...' and "..." keep blanks), stdin (a tuple-space key whose text is the program's
// standard input, "" = none), result (a tuple-space key for its standard output, "" = none),
// timeout_s (0 = none: then killed and reported). In args, stdin and result, {instance} and
// {iteration} are replaced. The program runs on the instance's first rank.
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "exadnn/flow/module.h"
#include "exadnn/flow/program.h"
#include "exadnn/flow/tuple_space.h"

namespace exadnn::flow {
namespace {

std::string substitute(std::string text, const ModuleContext& ctx) {
  const std::pair<const char*, int> fields[] = {{"{instance}", ctx.instance()},
                                                {"{iteration}", ctx.iteration()}};
  for (const auto& [field, value] : fields)
    for (size_t at; (at = text.find(field)) != std::string::npos;)
      text.replace(at, std::strlen(field), std::to_string(value));
  return text;
}

void exec_module(ModuleContext& ctx) {
  if (ctx.comm().rank() != 0) return;
  const std::string where = ctx.describe();
  const std::string program = ctx.arg<std::string>("program");
  std::vector<std::string> argv{program};
  for (std::string& a : split_arguments(substitute(ctx.arg<std::string>("args", ""), ctx), where))
    argv.push_back(std::move(a));
  const std::string stdin_key = substitute(ctx.arg<std::string>("stdin", ""), ctx);
  const std::string result_key = substitute(ctx.arg<std::string>("result", ""), ctx);
  const double timeout_s = ctx.arg<double>("timeout_s", 0.0);
  const std::string input = stdin_key.empty() ? "" : ctx.tuple_space().read(stdin_key).text();

  const ProgramRun run = run_program(argv, input, timeout_s, where);
  if (!run.out.empty())
    std::printf("%s: %s output:\n%s%s", where.c_str(), program.c_str(), run.out.c_str(),
                run.out.back() == '\n' ? "" : "\n");
  require_success(run, program, where, timeout_s);
  if (!result_key.empty()) ctx.tuple_space().put(result_key, run.out);
}

}  // namespace
}  // namespace exadnn::flow

EXADNN_FLOW_MODULE(exec, ::exadnn::flow::exec_module);
