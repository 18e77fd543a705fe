#include "route_tuning.h"

#include <fcntl.h>
#include <omp.h>
#include <sys/file.h>
#include <time.h>
#include <unistd.h>

#include <oneapi/dnnl/dnnl.hpp>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <limits>
#include <mutex>
#include <sstream>
#include <unordered_map>
#include <vector>

#include "exadnn/backend/measured_routes.h"
#include "exadnn/core/error.h"

namespace exadnn::cpu {

namespace fs = std::filesystem;

// What makes measurements from another machine or library version not apply here: the CPU's
// model name, family and model numbers and vector width (a virtual machine may name every
// generation of a vendor's server CPUs alike, "AMD EPYC", and an AVX2 one runs other kernels
// than an AVX-512 one: a home folder shared by a cluster's nodes must not mix them), and
// oneDNN's version.
const std::string& machine_tag() {
  static const std::string tag = [] {
    std::string model = "unknown-cpu", family = "?", number = "?", isa = "baseline";
    std::ifstream cpuinfo("/proc/cpuinfo");
    const auto value = [](const std::string& line) {
      const size_t colon = line.find(':');
      return colon == std::string::npos ? std::string() : line.substr(colon + 2);
    };
    for (std::string line; std::getline(cpuinfo, line);) {  // the first processor's lines
      if (line.empty()) break;
      if (line.rfind("model name", 0) == 0) model = value(line);
      if (line.rfind("cpu family", 0) == 0) family = value(line);
      if (line.rfind("model\t", 0) == 0) number = value(line);
      if (line.rfind("flags", 0) == 0) {
        const std::string flags = ' ' + value(line) + ' ';
        isa = flags.find(" avx512f ") != std::string::npos ? "avx512"
              : flags.find(" avx2 ") != std::string::npos  ? "avx2"
                                                           : "baseline";
      }
    }
    for (char& ch : model)
      if (ch == ' ' || ch == '\t') ch = '_';
    const dnnl_version_t* v = dnnl_version();
    std::ostringstream s;
    s << model << "-f" << family << "m" << number << '-' << isa << "/onednn-" << v->major << '.'
      << v->minor << '.' << v->patch;
    return s.str();
  }();
  return tag;
}

namespace {

// CPU seconds the other processes of the machine have used so far: the busy time of every core
// (/proc/stat: all but idle and iowait, in clock ticks; steal — another VM's — counts) less this
// process's own CPU time. 0 where /proc/stat cannot be read.
double others_cpu_seconds() {
  std::ifstream stat("/proc/stat");
  std::string label;
  uint64_t user = 0, nice = 0, system = 0, idle = 0, iowait = 0, irq = 0, softirq = 0, steal = 0;
  if (!(stat >> label >> user >> nice >> system >> idle >> iowait >> irq >> softirq >> steal) ||
      label != "cpu")
    return 0.0;
  const double busy = static_cast<double>(user + nice + system + irq + softirq + steal) /
                      static_cast<double>(::sysconf(_SC_CLK_TCK));
  timespec own{};
  ::clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &own);
  return busy - (static_cast<double>(own.tv_sec) + 1e-9 * static_cast<double>(own.tv_nsec));
}
std::atomic<OthersCpuClock> others_cpu_clock{&others_cpu_seconds};

struct Measurement {
  size_t route;  // index in the routes measured
  bool trusted;  // measured while other processes left the cores alone
};

// The fastest route by wall time: every route runs once first (creating its primitives; one that
// cannot run this problem, an Error, is out), then five rounds time each remaining route in turn,
// so a busy moment of a shared machine slows every route alike; the best time of each counts.
// Routes over 4x the best after a round are dropped. The choice is trusted unless other
// processes used more than a quarter of a core over the timed rounds (plus 30 ms for the
// clock-tick resolution of /proc/stat): threads that lose their core lose it for whole scheduler
// ticks, the timings then measure the load, and every route looks alike (the first one wins).
Measurement measure(const std::function<void(size_t)>& run, size_t count) {
  using Clock = std::chrono::steady_clock;
  constexpr double kOut = std::numeric_limits<double>::infinity();
  const size_t kCount = count;
  std::vector<double> best(kCount, kOut);
  std::vector<char> in(kCount, 0);
  for (size_t i = 0; i < kCount; ++i) {
    try {
      run(i);
      in[i] = true;
    } catch (const Error&) {
    }
  }
  const OthersCpuClock others = others_cpu_clock.load();
  const double others_before = others();
  const auto start = Clock::now();
  for (int round = 0; round < 5; ++round) {
    for (size_t i = 0; i < kCount; ++i) {
      if (!in[i]) continue;
      const auto t0 = Clock::now();
      run(i);
      best[i] = std::min(best[i], std::chrono::duration<double>(Clock::now() - t0).count());
    }
    const double fastest = *std::min_element(best.begin(), best.end());
    for (size_t i = 0; i < kCount; ++i) in[i] = in[i] && best[i] <= 4 * fastest;
  }
  const double wall = std::chrono::duration<double>(Clock::now() - start).count();
  const bool quiet = others() - others_before <= 0.25 * wall + 0.03;
  const size_t winner =
      static_cast<size_t>(std::min_element(best.begin(), best.end()) - best.begin());
  if (best[winner] == kOut) return {0, false};  // no route ran it
  return {winner, quiet};
}

// The wisdom file, opened and locked for the lifetime of this object (invalid: fd < 0).
class LockedWisdom {
 public:
  explicit LockedWisdom(const std::string& path) {
    if (path.empty()) return;
    std::error_code ec;
    fs::create_directories(fs::path(path).parent_path(), ec);
    fd_ = ::open(path.c_str(), O_RDWR | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
    if (fd_ >= 0 && ::flock(fd_, LOCK_EX) != 0) {
      ::close(fd_);
      fd_ = -1;
    }
  }
  ~LockedWisdom() {
    if (fd_ >= 0) ::close(fd_);  // releases the lock
  }
  LockedWisdom(const LockedWisdom&) = delete;
  LockedWisdom& operator=(const LockedWisdom&) = delete;

  /// Every "<key> <route>" line (the last of a key wins: a line is written again only when the
  /// one before named a route its problem no longer takes).
  std::unordered_map<std::string, std::string> read() const {
    std::unordered_map<std::string, std::string> routes;
    if (fd_ < 0) return routes;
    std::string text;
    char buf[4096];
    for (off_t at = 0;;) {
      const ssize_t n = ::pread(fd_, buf, sizeof buf, at);
      if (n <= 0) break;
      text.append(buf, static_cast<size_t>(n));
      at += n;
    }
    std::istringstream lines(text);
    for (std::string line; std::getline(lines, line);) {
      const size_t space = line.rfind(' ');
      if (space != std::string::npos && space > 0 && space + 1 < line.size())
        routes.insert_or_assign(line.substr(0, space), line.substr(space + 1));
    }
    return routes;
  }
  void append(const std::string& key, std::string_view route) const {
    if (fd_ < 0) return;
    const std::string line = key + ' ' + std::string(route) + '\n';
    [[maybe_unused]] const ssize_t n = ::write(fd_, line.data(), line.size());  // best effort
  }

 private:
  int fd_ = -1;
};

struct Known {
  std::mutex mutex;
  std::unordered_map<std::string, std::string> routes;  // key -> route name
  long long not_remembered = 0;  // measured on a busy machine: kept here, not in the file
};
Known& known() {
  static Known k;
  return k;
}

// Set while this thread measures a problem (its wisdom file locked, the process's routes held).
thread_local bool measuring = false;

}  // namespace

size_t tuned_route(const std::string& key, std::span<const std::string_view> routes,
                   const std::function<void(size_t)>& run) {
  EXADNN_CHECK(!routes.empty(), "tuned_route", "no route to measure for ", key);
  if (measuring || omp_in_parallel() != 0) return 0;
  Known& k = known();
  // The index of the route remembered for `key`, routes.size() when none of `routes` is.
  const auto remembered = [&] {
    const auto it = k.routes.find(key);
    if (it == k.routes.end()) return routes.size();
    return static_cast<size_t>(std::find(routes.begin(), routes.end(), it->second) -
                               routes.begin());
  };
  std::lock_guard<std::mutex> lock(k.mutex);  // one thread measures; the others wait for it
  if (const size_t i = remembered(); i < routes.size()) return i;
  const LockedWisdom wisdom(route_wisdom_path());
  for (auto& [saved_key, route] : wisdom.read()) k.routes.emplace(saved_key, std::move(route));
  if (const size_t i = remembered(); i < routes.size()) return i;
  const Measurement m = [&] {
    struct Flag {  // `measuring` for the measurement's lifetime, an exception's too
      Flag() { measuring = true; }
      ~Flag() { measuring = false; }
    } flag;
    return measure(run, routes.size());
  }();
  if (m.trusted)
    wisdom.append(key, routes[m.route]);
  else
    ++k.not_remembered;
  k.routes.insert_or_assign(key, std::string(routes[m.route]));
  return m.route;
}

std::string route_wisdom_path() {
  if (const char* env = std::getenv("EXADNN_CONV_WISDOM"); env != nullptr && *env != '\0')
    return std::string(env) == "none" ? std::string() : std::string(env);
  if (const char* xdg = std::getenv("XDG_CACHE_HOME"); xdg != nullptr && *xdg != '\0')
    return (fs::path(xdg) / "exadnn" / "conv_wisdom").string();
  if (const char* home = std::getenv("HOME"); home != nullptr && *home != '\0')
    return (fs::path(home) / ".cache" / "exadnn" / "conv_wisdom").string();
  return {};
}

void set_others_cpu_clock(OthersCpuClock clock) {
  others_cpu_clock.store(clock != nullptr ? clock : &others_cpu_seconds);
}

void forget_tuned_routes() {
  Known& k = known();
  std::lock_guard<std::mutex> lock(k.mutex);
  k.routes.clear();
  k.not_remembered = 0;
}

}  // namespace exadnn::cpu

namespace exadnn {

long long measured_routes_not_remembered() {
  cpu::Known& k = cpu::known();
  std::lock_guard<std::mutex> lock(k.mutex);
  return k.not_remembered;
}

}  // namespace exadnn
