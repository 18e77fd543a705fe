// run_program (the `exec` module's engine, and the apps' external oracles): output and input pass
// through whole however large (no pipe deadlock), and each way a program can end — an exit status,
// a signal, a time limit, a program that does not exist — is reported, naming the program.
#include <gtest/gtest.h>

#include <string>

#include "exadnn/core/error.h"
#include "exadnn/flow/program.h"

namespace exadnn::flow {
namespace {

TEST(Program, InputAndOutputPassThroughWholeAtAnySize) {
  std::string input;
  for (int k = 0; k < 200000; ++k) input += "line " + std::to_string(k) + "\n";  // ~2.4 MB
  const ProgramRun run = run_program({"cat"}, input);
  EXPECT_TRUE(run.succeeded());
  EXPECT_EQ(run.out.size(), input.size());
  EXPECT_EQ(run.out, input);
  const ProgramRun both = run_program({"sh", "-c", "echo to-out; echo to-err >&2; exit 0"});
  EXPECT_EQ(both.out, "to-out\n");
  EXPECT_EQ(both.err, "to-err\n");
}

// Run under mpirun, a program that saw the launcher's variables took itself for a rank of this
// job (Debian's GPAW, built with MPI, failed in orte_init and ended the job).
TEST(Program, AProgramIsNotARankOfThisJob) {
  const ProgramRun run = run_program({"sh", "-c", "env | grep -c -E '^(OMPI|PMIX)_' || true"});
  EXPECT_EQ(run.out, "0\n");
  const ProgramRun home = run_program({"sh", "-c", "echo \"$HOME\""});
  EXPECT_NE(home.out, "\n");  // everything else is inherited
}

TEST(Program, AProgramThatIgnoresItsInputDoesNotHurtTheCaller) {
  const ProgramRun run = run_program({"true"}, std::string(1 << 22, 'x'));
  EXPECT_TRUE(run.succeeded());
}

TEST(Program, ExitStatusSignalAndTimeLimitAreReported) {
  const ProgramRun failed = run_program({"sh", "-c", "echo 'bad species Xx' >&2; exit 3"});
  EXPECT_FALSE(failed.succeeded());
  EXPECT_EQ(failed.exit_status, 3);
  try {
    require_success(failed, "sh", "oracle call 7");
    FAIL() << "no error for exit status 3";
  } catch (const Error& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("oracle call 7: 'sh' exited with status 3"), std::string::npos) << what;
    EXPECT_NE(what.find("bad species Xx"), std::string::npos) << what;
  }
  const ProgramRun killed = run_program({"sh", "-c", "kill -9 $$"});
  EXPECT_EQ(killed.signal, 9);
  EXPECT_THROW(require_success(killed, "sh", "here"), Error);
  const ProgramRun slow = run_program({"sleep", "30"}, "", 0.3);
  EXPECT_TRUE(slow.timed_out);
  EXPECT_LT(slow.seconds, 10.0);
  EXPECT_THROW(require_success(slow, "sleep", "here", 0.3), Error);
}

TEST(Program, AMissingProgramIsNamed) {
  try {
    run_program({"no_such_program_xyz"}, "", 0.0, "gpaw oracle");
    FAIL() << "no error for a missing program";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("gpaw oracle: cannot run 'no_such_program_xyz'"),
              std::string::npos)
        << e.what();
  }
}

TEST(Program, ArgumentsSplitAtBlanksAndQuotesKeepThem) {
  EXPECT_EQ(split_arguments("a  'b c' \"d e\"f", "here"),
            (std::vector<std::string>{"a", "b c", "d ef"}));
  EXPECT_THROW(split_arguments("a 'b", "here"), Error);
}

}  // namespace
}  // namespace exadnn::flow
