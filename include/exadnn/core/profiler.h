// Where a training step's time goes: wall time per layer and pass (forward, backward), optimizer
// and data, measured on the calling thread when profiling is on.
//
//   profiler::enable(true);
//   ... train ...
//   std::cout << profiler::format_table(profiler::rows(), steps, wall_seconds);
//
// Layers are labelled by nn::Sequential ("3 Conv2d", nested: "4 Residual/0 Conv2d"); the graph
// nodes an op records while a label is open carry it, so their backward time is charged to the
// same layer. Regions nest and each keeps its own (exclusive) time: a Sequential's row holds only
// what its children did not. Off (the default), every hook is one relaxed atomic load.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace exadnn::profiler {

/// What part of a training step a region's time belongs to.
enum class Phase : uint8_t { forward, backward, optimizer, data };
const char* phase_name(Phase phase);

/// Turns profiling on or off for the whole process (off by default).
void enable(bool on);
bool enabled();
/// Forgets everything measured so far.
void reset();

/// One label's total time in one phase.
struct Row {
  std::string label;
  Phase phase = Phase::forward;
  int64_t calls = 0;
  double seconds = 0.0;  ///< exclusive: nested regions' time is theirs
};
/// Everything measured since the last reset, in the order labels first appeared.
std::vector<Row> rows();

/// Times its own lifetime under (phase, label) when profiling is on; a no-op otherwise.
class Region {
 public:
  Region(Phase phase, std::string label);
  ~Region();
  Region(const Region&) = delete;
  Region& operator=(const Region&) = delete;

 private:
  bool active_ = false;
};

/// Opens a forward region for one layer and makes its label the one new graph nodes carry.
/// `name` is appended to the enclosing layer's label: "<enclosing>/<name>".
class LayerScope {
 public:
  explicit LayerScope(const std::string& name);
  ~LayerScope();
  LayerScope(const LayerScope&) = delete;
  LayerScope& operator=(const LayerScope&) = delete;

 private:
  std::optional<Region> region_;
};

/// The label of the innermost open LayerScope on this thread (null when none or when off).
std::shared_ptr<const std::string> current_layer();

/// A table of milliseconds per step for every label (forward, backward, total, share of the
/// step), the optimizer and data rows, and the step's time no region measured.
std::string format_table(const std::vector<Row>& rows, int64_t steps, double wall_seconds);

}  // namespace exadnn::profiler
