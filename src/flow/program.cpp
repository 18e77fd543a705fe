// run_program: posix_spawnp with three pipes, stdin fed while stdout and stderr are drained (a
// program that writes much before reading all its input must not deadlock), then waitpid.
#include "exadnn/flow/program.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <string_view>

#include "exadnn/core/error.h"

extern char** environ;

namespace exadnn::flow {
namespace {

// The last `lines` lines of `text`.
std::string tail(const std::string& text, int lines) {
  size_t at = text.size();
  for (int k = 0; k <= lines && at != std::string::npos && at > 0; ++k)
    at = text.rfind('\n', at - 1);
  return at == std::string::npos ? text : text.substr(at + 1);
}

struct Pipe {
  int fd[2] = {-1, -1};
  explicit Pipe(const std::string& where) {
    EXADNN_CHECK(::pipe2(fd, O_CLOEXEC) == 0, "flow exec", where, ": pipe: ", std::strerror(errno));
  }
  ~Pipe() {
    for (int f : fd)
      if (f >= 0) ::close(f);
  }
  void close(int end) {
    if (fd[end] >= 0) ::close(fd[end]);
    fd[end] = -1;
  }
};

// The environment a program gets: ours without the MPI launcher's variables. A program started
// from a rank that inherits them takes itself for a rank of this job: an MPI-built one (GPAW,
// LAMMPS, a nested mpirun) then fails in MPI_Init, or worse, joins the job.
std::vector<std::string> program_environment() {
  static constexpr const char* kLauncherPrefixes[] = {
      "OMPI_", "PMIX_", "PMI_", "ORTE_", "OPAL_", "HYDRA_", "MPI_LOCALRANKID", "MPI_LOCALNRANKS"};
  std::vector<std::string> out;
  for (char** e = environ; *e; ++e) {
    const std::string_view entry(*e);
    bool launcher = false;
    for (const char* prefix : kLauncherPrefixes) launcher = launcher || entry.starts_with(prefix);
    if (!launcher) out.emplace_back(entry);
  }
  return out;
}

}  // namespace

ProgramRun run_program(const std::vector<std::string>& argv_text, const std::string& input,
                       double timeout_s, const std::string& where) {
  EXADNN_CHECK(!argv_text.empty() && !argv_text[0].empty(), "flow exec", where,
               ": no program to run");
  const std::string& program = argv_text[0];
  Pipe in(where), out(where), err(where);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, in.fd[0], STDIN_FILENO);
  posix_spawn_file_actions_adddup2(&actions, out.fd[1], STDOUT_FILENO);
  posix_spawn_file_actions_adddup2(&actions, err.fd[1], STDERR_FILENO);
  std::vector<std::string> words = argv_text;
  std::vector<char*> argv;
  for (std::string& a : words) argv.push_back(a.data());
  argv.push_back(nullptr);
  pid_t pid = 0;
  std::vector<std::string> environment = program_environment();
  std::vector<char*> envp;
  for (std::string& e : environment) envp.push_back(e.data());
  envp.push_back(nullptr);
  const int spawned =
      posix_spawnp(&pid, program.c_str(), &actions, nullptr, argv.data(), envp.data());
  posix_spawn_file_actions_destroy(&actions);
  EXADNN_CHECK(spawned == 0, "flow exec", where, ": cannot run '", program,
               "': ", std::strerror(spawned));
  in.close(0);
  out.close(1);
  err.close(1);
  // Non-blocking input: a large write must not block while the program waits for us to read.
  ::fcntl(in.fd[1], F_SETFL, ::fcntl(in.fd[1], F_GETFL) | O_NONBLOCK);
  // A program that exits without reading all its input must not kill us with SIGPIPE.
  struct sigaction ignore {
  }, previous{};
  ignore.sa_handler = SIG_IGN;
  ::sigaction(SIGPIPE, &ignore, &previous);

  ProgramRun run;
  size_t fed = 0;
  if (input.empty()) in.close(1);
  const auto start = std::chrono::steady_clock::now();
  while (out.fd[0] >= 0 || err.fd[0] >= 0) {
    pollfd fds[3] = {{out.fd[0], POLLIN, 0}, {err.fd[0], POLLIN, 0}, {in.fd[1], POLLOUT, 0}};
    ::poll(fds, 3, 100);
    char buffer[65536];
    for (int k = 0; k < 2; ++k) {
      Pipe& pipe = k == 0 ? out : err;
      if (pipe.fd[0] < 0 || !(fds[k].revents & (POLLIN | POLLHUP | POLLERR))) continue;
      const ssize_t n = ::read(pipe.fd[0], buffer, sizeof buffer);
      if (n <= 0)
        pipe.close(0);
      else
        (k == 0 ? run.out : run.err).append(buffer, static_cast<size_t>(n));
    }
    if (in.fd[1] >= 0 && (fds[2].revents & (POLLOUT | POLLERR | POLLHUP))) {
      const ssize_t n = ::write(in.fd[1], input.data() + fed, input.size() - fed);
      if (n > 0) fed += static_cast<size_t>(n);
      if ((n < 0 && errno != EAGAIN && errno != EINTR) || fed == input.size()) in.close(1);
    }
    run.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (timeout_s > 0 && run.seconds > timeout_s && !run.timed_out) {
      ::kill(pid, SIGKILL);
      run.timed_out = true;
    }
  }
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  ::sigaction(SIGPIPE, &previous, nullptr);
  run.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  if (WIFSIGNALED(status)) run.signal = WTERMSIG(status);
  if (WIFEXITED(status)) run.exit_status = WEXITSTATUS(status);
  return run;
}

void require_success(const ProgramRun& run, const std::string& program, const std::string& where,
                     double timeout_s) {
  const std::string said = run.err.empty() ? "" : "; its stderr ends:\n" + tail(run.err, 20);
  EXADNN_CHECK(!run.timed_out, "flow exec", where, ": '", program,
               "' ran past timeout_s = ", timeout_s, " and was killed", said);
  EXADNN_CHECK(run.signal == 0, "flow exec", where, ": '", program, "' was killed by signal ",
               run.signal, " (", strsignal(run.signal), ")", said);
  EXADNN_CHECK(run.exit_status == 0, "flow exec", where, ": '", program, "' exited with status ",
               run.exit_status, said);
}

std::vector<std::string> split_arguments(const std::string& text, const std::string& where) {
  std::vector<std::string> out;
  std::string word;
  bool in_word = false;
  char quote = 0;
  for (const char c : text) {
    if (quote) {
      if (c == quote)
        quote = 0;
      else
        word += c;
    } else if (c == '\'' || c == '"') {
      quote = c;
      in_word = true;
    } else if (c == ' ' || c == '\t') {
      if (in_word) out.push_back(word);
      word.clear();
      in_word = false;
    } else {
      word += c;
      in_word = true;
    }
  }
  EXADNN_CHECK(!quote, "flow exec", where, ": an unclosed quote in args '", text, "'");
  if (in_word) out.push_back(word);
  return out;
}

}  // namespace exadnn::flow
