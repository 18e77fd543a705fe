// Restart files: a run's state, time and step count, with the settings it ran under, so that a
// run stopped (killed, or out of time) continues from its last output step and computes the same
// fields as one that never stopped (bit for bit: the time step is a function of the state).
//
// The file is an exadnn checkpoint (exadnn/io/checkpoint.h: versioned, checksummed, written
// atomically): the state as one f64 tensor "state", and string metadata — "kind" (climate
// restart), "time" and "steps", and every setting that must match for the run to continue
// (test case, mesh, degree, volume form, Courant number, filter, output interval).
#pragma once

#include <map>
#include <string>

#include "climate/simulation.h"

namespace climate {

/// The settings a restart must match, by name ("ne" -> "16", ...), as the run formats them.
using RestartSettings = std::map<std::string, std::string>;

/// A double as text that reads back to the same double (for settings that compare as text).
std::string exact_text(double v);

struct Restart {
  SwState state;
  double time = 0;
  long steps = 0;
};

/// Writes `state` (the whole state, one process's layout), `time` and `steps` with `settings` to
/// `path` (atomically: a run killed while writing leaves the previous restart file).
void save_restart(const std::string& path, const SwState& state, double time, long steps,
                  const RestartSettings& settings);
/// The same for a one-process simulation's state, time and steps.
void save_restart(const std::string& path, const Simulation& sim, const RestartSettings& settings);

/// Reads `path`; an Error names the file and what is wrong: not a climate restart, a setting that
/// differs from `settings` (both values), a state of another size than `state_size`, or the
/// checkpoint's own checks (missing, truncated, corrupt).
Restart load_restart(const std::string& path, const RestartSettings& settings,
                     std::size_t state_size);

}  // namespace climate
