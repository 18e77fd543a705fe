#include "conv_tuning.h"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/resource.h>
#include <unistd.h>

#include <oneapi/dnnl/dnnl.hpp>

#include <algorithm>
#include <array>
#include <atomic>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <limits>
#include <mutex>
#include <sstream>
#include <unordered_map>

#include "exadnn/backend/runtime.h"
#include "exadnn/core/error.h"
#include "nn_impl.h"

namespace exadnn::cpu {

namespace {

namespace fs = std::filesystem;

// What makes measurements from another machine or library version not apply here.
const std::string& machine_tag() {
  static const std::string tag = [] {
    std::string model = "unknown-cpu";
    std::ifstream cpuinfo("/proc/cpuinfo");
    for (std::string line; std::getline(cpuinfo, line);)
      if (line.rfind("model name", 0) == 0) {
        model = line.substr(line.find(':') + 2);
        break;
      }
    for (char& ch : model)
      if (ch == ' ' || ch == '\t') ch = '_';
    const dnnl_version_t* v = dnnl_version();
    std::ostringstream s;
    s << model << "/onednn-" << v->major << '.' << v->minor << '.' << v->patch;
    return s.str();
  }();
  return tag;
}

const char* pass_name(ConvPass pass) {
  switch (pass) {
    case ConvPass::forward:
      return "fwd";
    case ConvPass::backward_data:
      return "bwd_data";
    case ConvPass::backward_weights:
      return "bwd_weights";
  }
  return "?";
}

bool route_from_name(const std::string& name, ConvRoute& route) {
  for (ConvRoute r : kConvRoutes)
    if (name == conv_route_name(r)) {
      route = r;
      return true;
    }
  return false;
}

// Involuntary context switches of this process so far (all its threads): the kernel took a core
// from one of them, because the machine had more runnable threads than cores.
long involuntary_switches() {
  rusage usage{};
  ::getrusage(RUSAGE_SELF, &usage);
  return usage.ru_nivcsw;
}
std::atomic<PreemptionCounter> preemption_counter{&involuntary_switches};

struct Measurement {
  ConvRoute route;
  bool trusted;  // every remaining route had a run without preemption
};

// The fastest route by wall time. Every route runs once first (creating its primitives; one that
// cannot run this problem, an Error, is out); then rounds time each remaining route in turn, so a
// slow moment slows every route alike. A run is clean when no thread of the process was preempted
// during it: on a busy machine a run measures the load in whole scheduler ticks, not the route
// (every route then looks alike, and the first one wins). Each route's best clean time counts;
// routes over 4x the best after a round are dropped. After 5 rounds, up to 5 more run while a
// remaining route has no clean run. Without a clean run of each remaining route the best of all
// runs decides, and the choice is not trusted (not written down: a later process measures again).
Measurement measure(const std::function<void(ConvRoute)>& run) {
  using Clock = std::chrono::steady_clock;
  constexpr double kOut = std::numeric_limits<double>::infinity();
  constexpr size_t kCount = std::size(kConvRoutes);
  constexpr int kRounds = 5, kMaxRounds = 10;
  std::array<double, kCount> clean, any;  // best clean time, best time of any run
  clean.fill(kOut);
  any.fill(kOut);
  std::array<bool, kCount> in{};
  for (size_t i = 0; i < kCount; ++i) {
    try {
      run(kConvRoutes[i]);
      in[i] = true;
    } catch (const Error&) {
    }
  }
  auto each_in_has_a_clean_run = [&] {
    for (size_t i = 0; i < kCount; ++i)
      if (in[i] && clean[i] == kOut) return false;
    return true;
  };
  auto best = [&](size_t i) { return clean[i] < kOut ? clean[i] : any[i]; };
  const PreemptionCounter preemptions = preemption_counter.load();
  for (int round = 0; round < kRounds || (round < kMaxRounds && !each_in_has_a_clean_run());
       ++round) {
    for (size_t i = 0; i < kCount; ++i) {
      if (!in[i]) continue;
      const long before = preemptions();
      const auto t0 = Clock::now();
      run(kConvRoutes[i]);
      const double t = std::chrono::duration<double>(Clock::now() - t0).count();
      any[i] = std::min(any[i], t);
      if (preemptions() == before) clean[i] = std::min(clean[i], t);
    }
    double fastest = kOut;
    for (size_t i = 0; i < kCount; ++i)
      if (in[i]) fastest = std::min(fastest, best(i));
    for (size_t i = 0; i < kCount; ++i) in[i] = in[i] && best(i) <= 4 * fastest;
  }
  const bool trusted = each_in_has_a_clean_run();
  const std::array<double, kCount>& times = trusted ? clean : any;
  size_t winner = kCount;
  for (size_t i = 0; i < kCount; ++i)
    if (in[i] && (winner == kCount || times[i] < times[winner])) winner = i;
  if (winner == kCount) return {ConvRoute::onednn_blocked, false};  // no route ran this problem
  return {kConvRoutes[winner], trusted};
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

  /// Every well-formed "<key> <route>" line (the first of a key wins).
  std::unordered_map<std::string, ConvRoute> read() const {
    std::unordered_map<std::string, ConvRoute> routes;
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
      ConvRoute r;
      if (space != std::string::npos && route_from_name(line.substr(space + 1), r))
        routes.emplace(line.substr(0, space), r);
    }
    return routes;
  }
  void append(const std::string& key, ConvRoute route) const {
    if (fd_ < 0) return;
    const std::string line = key + ' ' + conv_route_name(route) + '\n';
    [[maybe_unused]] const ssize_t n = ::write(fd_, line.data(), line.size());  // best effort
  }

 private:
  int fd_ = -1;
};

struct Known {
  std::mutex mutex;
  std::unordered_map<std::string, ConvRoute> routes;
};
Known& known() {
  static Known k;
  return k;
}

}  // namespace

std::string conv_wisdom_key(const Conv2dGeometry& g, bool bias, ConvPass pass) {
  std::ostringstream s;
  // "routes4": measured among the six routes (Winograd added), runs preempted by other
  // processes not counted; older lines (some measured on a busy machine) are ignored.
  // With EXADNN_CONV_WINOGRAD=0 the routes measured are others: a line naming Winograd must
  // not be followed then (it would fail), nor a choice made without it when it is back.
  s << "conv2d/f32/routes4" << (onednn::winograd_enabled() ? "" : "-nowinograd") << '/'
    << machine_tag() << "/threads" << get_num_threads() << '/' << pass_name(pass) << "/n" << g.n
    << "c" << g.c << "h" << g.h << "w" << g.w << "o" << g.o << "k" << g.kh << 'x' << g.kw << "s"
    << g.stride_h << 'x' << g.stride_w << "p" << g.pad_h << 'x' << g.pad_w << "d" << g.dilation_h
    << 'x' << g.dilation_w << "g" << g.groups << (bias ? "b1" : "b0");
  return s.str();
}

const char* conv_route_name(ConvRoute route) {
  switch (route) {
    case ConvRoute::onednn_plain:
      return "onednn-plain";
    case ConvRoute::onednn_blocked:
      return "onednn-blocked";
    case ConvRoute::onednn_nhwc:
      return "onednn-nhwc";
    case ConvRoute::im2col:
      return "im2col";
    case ConvRoute::dense:
      return "dense";
    case ConvRoute::onednn_winograd:
      return "onednn-winograd";
  }
  return "?";
}

std::string conv_wisdom_path() {
  if (const char* env = std::getenv("EXADNN_CONV_WISDOM"); env != nullptr && *env != '\0')
    return std::string(env) == "none" ? std::string() : std::string(env);
  if (const char* xdg = std::getenv("XDG_CACHE_HOME"); xdg != nullptr && *xdg != '\0')
    return (fs::path(xdg) / "exadnn" / "conv_wisdom").string();
  if (const char* home = std::getenv("HOME"); home != nullptr && *home != '\0')
    return (fs::path(home) / ".cache" / "exadnn" / "conv_wisdom").string();
  return {};
}

ConvRoute tuned_conv_route(const Conv2dGeometry& g, bool bias, ConvPass pass,
                           const std::function<void(ConvRoute)>& run) {
  const std::string key = conv_wisdom_key(g, bias, pass);
  Known& k = known();
  std::lock_guard<std::mutex> lock(k.mutex);  // one thread measures; the others wait for it
  if (auto it = k.routes.find(key); it != k.routes.end()) return it->second;
  const LockedWisdom wisdom(conv_wisdom_path());
  for (const auto& [saved_key, route] : wisdom.read()) k.routes.emplace(saved_key, route);
  if (auto it = k.routes.find(key); it != k.routes.end()) return it->second;
  const Measurement m = measure(run);
  if (m.trusted) wisdom.append(key, m.route);
  k.routes.emplace(key, m.route);
  return m.route;
}

void set_preemption_counter(PreemptionCounter counter) {
  preemption_counter.store(counter != nullptr ? counter : &involuntary_switches);
}

void forget_conv_routes() {
  Known& k = known();
  std::lock_guard<std::mutex> lock(k.mutex);
  k.routes.clear();
}

}  // namespace exadnn::cpu
