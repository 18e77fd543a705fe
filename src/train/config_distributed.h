// The config's `distributed:` section, read into the settings of the strategy its mode names
// (exadnn/train/strategies.h): config_mpi.cpp reads the MPI strategies' keys, config_threads.cpp
// the threaded ones'. Internal to the train library (config.cpp calls them).
#pragma once

#include "config_values.h"
#include "exadnn/train/strategies.h"

namespace exadnn::train::internal {

/// Reads the mapping of an MPI strategy's mode into `spec` (enabled); problems go to `report`.
void parse_mpi(const YAML::Node& distributed, MpiSpec& spec, const ReportProblem& report);

/// Reads the mapping of a threaded strategy's mode into `spec` (enabled); problems go to
/// `report`.
void parse_threads(const YAML::Node& distributed, HogwildSpec& spec, const ReportProblem& report);

}  // namespace exadnn::train::internal
