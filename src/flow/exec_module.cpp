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
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "exadnn/flow/module.h"
#include "exadnn/flow/tuple_space.h"

extern char** environ;

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

// Splits at blanks; '...' and "..." keep their blanks (no other shell syntax).
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

// The last `lines` lines of `text`.
std::string tail(const std::string& text, int lines) {
  size_t at = text.size();
  for (int k = 0; k <= lines && at != std::string::npos && at > 0; ++k)
    at = text.rfind('\n', at - 1);
  return at == std::string::npos ? text : text.substr(at + 1);
}

struct Pipe {
  int fd[2] = {-1, -1};
  Pipe() { EXADNN_CHECK(::pipe2(fd, O_CLOEXEC) == 0, "flow exec", "pipe: ", std::strerror(errno)); }
  ~Pipe() {
    for (int f : fd)
      if (f >= 0) ::close(f);
  }
  void close(int end) {
    if (fd[end] >= 0) ::close(fd[end]);
    fd[end] = -1;
  }
};

void exec_module(ModuleContext& ctx) {
  if (ctx.comm().rank() != 0) return;
  const std::string where = ctx.describe();
  const std::string program = ctx.arg<std::string>("program");
  std::vector<std::string> argv_text{program};
  for (std::string& a : split_arguments(substitute(ctx.arg<std::string>("args", ""), ctx), where))
    argv_text.push_back(std::move(a));
  const std::string stdin_key = substitute(ctx.arg<std::string>("stdin", ""), ctx);
  const std::string result_key = substitute(ctx.arg<std::string>("result", ""), ctx);
  const double timeout_s = ctx.arg<double>("timeout_s", 0.0);
  const std::string input = stdin_key.empty() ? "" : ctx.tuple_space().read(stdin_key).text();

  Pipe in, out, err;
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, in.fd[0], STDIN_FILENO);
  posix_spawn_file_actions_adddup2(&actions, out.fd[1], STDOUT_FILENO);
  posix_spawn_file_actions_adddup2(&actions, err.fd[1], STDERR_FILENO);
  std::vector<char*> argv;
  for (std::string& a : argv_text) argv.push_back(a.data());
  argv.push_back(nullptr);
  pid_t pid = 0;
  const int spawned = posix_spawnp(&pid, program.c_str(), &actions, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  EXADNN_CHECK(spawned == 0, "flow exec", where, ": cannot run '", program,
               "': ", std::strerror(spawned));
  in.close(0);
  out.close(1);
  err.close(1);
  // Feed stdin (then close it) while collecting stdout and stderr, until both end.
  std::string stdout_text, stderr_text;
  size_t fed = 0;
  if (input.empty()) in.close(1);
  const auto start = std::chrono::steady_clock::now();
  bool timed_out = false;
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
        (k == 0 ? stdout_text : stderr_text).append(buffer, static_cast<size_t>(n));
    }
    if (in.fd[1] >= 0 && (fds[2].revents & (POLLOUT | POLLERR | POLLHUP))) {
      const ssize_t n = ::write(in.fd[1], input.data() + fed, input.size() - fed);
      if (n > 0) fed += static_cast<size_t>(n);
      if (n < 0 || fed == input.size()) in.close(1);
    }
    const double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (timeout_s > 0 && seconds > timeout_s && !timed_out) {
      ::kill(pid, SIGKILL);
      timed_out = true;
    }
  }
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (!stdout_text.empty())
    std::printf("%s: %s output:\n%s%s", where.c_str(), program.c_str(), stdout_text.c_str(),
                stdout_text.back() == '\n' ? "" : "\n");
  const std::string said =
      stderr_text.empty() ? "" : "; its stderr ends:\n" + tail(stderr_text, 20);
  EXADNN_CHECK(!timed_out, "flow exec", where, ": '", program, "' ran past timeout_s = ", timeout_s,
               " and was killed", said);
  if (WIFSIGNALED(status))
    throw Error("flow exec", exadnn::detail::cat(where, ": '", program, "' was killed by signal ",
                                                 WTERMSIG(status), " (",
                                                 strsignal(WTERMSIG(status)), ")", said));
  EXADNN_CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0, "flow exec", where, ": '", program,
               "' exited with status ", WEXITSTATUS(status), said);
  if (!result_key.empty()) ctx.tuple_space().put(result_key, stdout_text);
}

}  // namespace
}  // namespace exadnn::flow

EXADNN_FLOW_MODULE(exec, ::exadnn::flow::exec_module);
