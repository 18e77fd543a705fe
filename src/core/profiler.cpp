#include "exadnn/core/profiler.h"

#include <atomic>
#include <chrono>
#include <cstdio>
#include <mutex>
#include <sstream>
#include <unordered_map>
#include <utility>

namespace exadnn::profiler {

namespace {

using Clock = std::chrono::steady_clock;

std::atomic<bool> g_enabled{false};

// The totals of every (label, phase), shared by all threads.
struct Totals {
  std::mutex mutex;
  std::vector<Row> rows;
  std::unordered_map<std::string, size_t> index;  // label + '\0' + phase -> rows[i]

  void add(Phase phase, const std::string& label, double seconds) {
    std::string key = label;
    key.push_back('\0');
    key.push_back(static_cast<char>('0' + static_cast<int>(phase)));
    std::lock_guard<std::mutex> lock(mutex);
    auto [it, inserted] = index.try_emplace(std::move(key), rows.size());
    if (inserted) rows.push_back(Row{label, phase, 0, 0.0});
    Row& row = rows[it->second];
    ++row.calls;
    row.seconds += seconds;
  }
};

Totals& totals() {
  static Totals t;
  return t;
}

// A region open on this thread; children's time is subtracted from it when it closes.
struct OpenRegion {
  Phase phase;
  std::string label;
  Clock::time_point start;
  double child_seconds = 0.0;
};
thread_local std::vector<OpenRegion> t_open;
thread_local std::vector<std::shared_ptr<const std::string>> t_layers;

std::string ms(double seconds_per_step) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%9.3f", seconds_per_step * 1e3);
  return buf;
}

std::string percent(double part, double whole) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%6.1f %%", whole > 0 ? 100.0 * part / whole : 0.0);
  return buf;
}

}  // namespace

const char* phase_name(Phase phase) {
  switch (phase) {
    case Phase::forward:
      return "forward";
    case Phase::backward:
      return "backward";
    case Phase::optimizer:
      return "optimizer";
    case Phase::data:
      return "data";
  }
  return "?";
}

void enable(bool on) {
  g_enabled.store(on, std::memory_order_relaxed);
}
bool enabled() {
  return g_enabled.load(std::memory_order_relaxed);
}

void reset() {
  Totals& t = totals();
  std::lock_guard<std::mutex> lock(t.mutex);
  t.rows.clear();
  t.index.clear();
}

std::vector<Row> rows() {
  Totals& t = totals();
  std::lock_guard<std::mutex> lock(t.mutex);
  return t.rows;
}

Region::Region(Phase phase, std::string label) {
  if (!enabled()) return;
  active_ = true;
  t_open.push_back(OpenRegion{phase, std::move(label), Clock::now()});
}

Region::~Region() {
  if (!active_ || t_open.empty()) return;
  OpenRegion r = std::move(t_open.back());
  t_open.pop_back();
  const double elapsed = std::chrono::duration<double>(Clock::now() - r.start).count();
  if (!t_open.empty()) t_open.back().child_seconds += elapsed;
  totals().add(r.phase, r.label, elapsed - r.child_seconds);
}

LayerScope::LayerScope(const std::string& name) {
  if (!enabled()) return;
  auto label =
      std::make_shared<const std::string>(t_layers.empty() ? name : *t_layers.back() + "/" + name);
  region_.emplace(Phase::forward, *label);
  t_layers.push_back(std::move(label));
}

LayerScope::~LayerScope() {
  if (!region_) return;
  region_.reset();  // closes the forward region before the label goes
  if (!t_layers.empty()) t_layers.pop_back();
}

std::shared_ptr<const std::string> current_layer() {
  if (!enabled() || t_layers.empty()) return nullptr;
  return t_layers.back();
}

std::string format_table(const std::vector<Row>& rows, int64_t steps, double wall_seconds) {
  const double per = steps > 0 ? 1.0 / static_cast<double>(steps) : 0.0;
  const double step = wall_seconds * per;
  // Labels in order of first appearance, with their forward and backward seconds.
  std::vector<std::pair<std::string, std::pair<double, double>>> layers;
  std::unordered_map<std::string, size_t> at;
  double optimizer = 0, data = 0, measured = 0;
  for (const Row& r : rows) {
    measured += r.seconds;
    if (r.phase == Phase::optimizer) {
      optimizer += r.seconds;
      continue;
    }
    if (r.phase == Phase::data) {
      data += r.seconds;
      continue;
    }
    auto [it, inserted] = at.try_emplace(r.label, layers.size());
    if (inserted) layers.push_back({r.label, {0.0, 0.0}});
    auto& [fwd, bwd] = layers[it->second].second;
    (r.phase == Phase::forward ? fwd : bwd) += r.seconds;
  }
  std::ostringstream out;
  out << "profile: " << steps << " steps, " << ms(step) << " ms per step (wall)\n";
  out << "  forward ms  backward ms     total ms   share  layer\n";
  for (const auto& [label, t] : layers) {
    const double sum = t.first + t.second;
    out << "  " << ms(t.first * per) << "    " << ms(t.second * per) << "    " << ms(sum * per)
        << "  " << percent(sum * per, step) << "  " << label << "\n";
  }
  out << "                            " << ms(optimizer * per) << "  "
      << percent(optimizer * per, step) << "  (optimizer)\n";
  out << "                            " << ms(data * per) << "  " << percent(data * per, step)
      << "  (data: waiting for the next batch)\n";
  const double rest = step - measured * per;
  out << "                            " << ms(rest) << "  " << percent(rest, step)
      << "  (not in any region: zero_grad, the step's own bookkeeping)\n";
  return out.str();
}

}  // namespace exadnn::profiler
