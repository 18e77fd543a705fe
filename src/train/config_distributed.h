// The config's `distributed:` section, read into the settings of the strategy its mode names
// (exadnn/train/strategies.h): config_mpi.cpp reads the MPI strategies' keys, config_threads.cpp
// the threaded ones'; config_parallel.cpp reads the `parallel:` section beside it. Internal to the
// train library (config.cpp calls them).
#pragma once

#include "config_values.h"
#include "exadnn/train/config.h"
#include "exadnn/train/strategies.h"

namespace exadnn::train::internal {

/// Reads the mapping of an MPI strategy's mode into `spec` (enabled); problems go to `report`.
void parse_mpi(const YAML::Node& distributed, MpiSpec& spec, const ReportProblem& report);

/// Reads the mapping of a threaded strategy's mode into `spec` (enabled); problems go to
/// `report`.
void parse_threads(const YAML::Node& distributed, HogwildSpec& spec, const ReportProblem& report);

/// Reads the `parallel:` mapping into config.parallel (enabled) and checks it against the rest of
/// the config, which is read already: the distributed mode it runs beside, the model's layers
/// (pipeline stages, features split by tensor) and the batch (micro-batches). The checks that
/// need the rank count are the strategy's (mpi/mpi_strategies.cpp).
void parse_parallel(const YAML::Node& parallel, TrainConfig& config, const ReportProblem& report);

}  // namespace exadnn::train::internal
