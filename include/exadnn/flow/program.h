// Running an existing program, as openDIEL runs its executables: a first-principles code, a
// converter, a script. The `exec` module runs one per instance from the control file; an
// application's own code (an energy oracle that calls a DFT code per configuration) calls
// run_program directly.
#pragma once

#include <string>
#include <vector>

namespace exadnn::flow {

/// What a program did: how it ended, and everything it wrote.
struct ProgramRun {
  int exit_status = 0;     ///< its exit status (when it exited)
  int signal = 0;          ///< the signal that killed it (0 = none)
  bool timed_out = false;  ///< killed for running past the time limit
  std::string out;         ///< its standard output
  std::string err;         ///< its standard error
  double seconds = 0.0;    ///< wall-clock time it ran

  bool succeeded() const { return !timed_out && signal == 0 && exit_status == 0; }
};

/// Runs argv[0] (a path, or a name looked up on PATH) with arguments argv[1..], feeding `input`
/// to its standard input and collecting its standard output and error; `timeout_s` > 0 kills it
/// (SIGKILL) past that many seconds. It inherits the environment except the MPI launcher's
/// variables (OMPI_*, PMIX_*, PMI_*, ...): it is not a rank of this job, and an MPI program it
/// starts (GPAW, LAMMPS, a nested mpirun) starts its own. Throws exadnn::Error naming `where` and
/// the program only when it cannot be started; how it ended is in the result.
ProgramRun run_program(const std::vector<std::string>& argv, const std::string& input = "",
                       double timeout_s = 0.0, const std::string& where = "run_program");

/// Throws exadnn::Error (category "flow exec") when `run` did not succeed: "`where`: 'program'
/// exited with status 2; its stderr ends: ..." (or was killed by a signal, or ran past the limit).
void require_success(const ProgramRun& run, const std::string& program, const std::string& where,
                     double timeout_s = 0.0);

/// Splits a command line at blanks; '...' and "..." keep their blanks (no other shell syntax). An
/// unclosed quote is an error naming `where`.
std::vector<std::string> split_arguments(const std::string& text, const std::string& where);

}  // namespace exadnn::flow
