// Typed values read out of the training config's YAML nodes, each problem reported with the
// node's line: whole numbers within bounds, finite reals within bounds, and a description of
// what a wrong value was ("'abc'", "nothing (an empty value)", "a list").
#pragma once

#include <yaml-cpp/yaml.h>

#include <cstdint>
#include <functional>
#include <string>

namespace exadnn::train::internal {

/// Reports a problem at a node (its line) with a message.
using ReportProblem = std::function<void(const YAML::Node&, const std::string&)>;

/// How a value that was refused reads in a message: 'text' for a scalar, otherwise its kind.
std::string describe_value(const YAML::Node& v);

/// Reads v (when defined) as a whole number in [lo, hi] into `out`; anything else (a fraction,
/// text, an empty value, a number out of range) is reported naming `name` and the bounds, and
/// leaves `out` unchanged. Returns whether a value was read.
bool read_count(const YAML::Node& v, const std::string& name, int64_t lo, int64_t hi, int64_t& out,
                const ReportProblem& report);
bool read_count(const YAML::Node& v, const std::string& name, int64_t lo, int64_t hi, int& out,
                const ReportProblem& report);

/// Reads v (when defined) as a finite real in [lo, hi] (lo excluded when `lo_open`) into `out`;
/// NaN, infinities and values out of range are reported naming `name` and the bounds.
bool read_real(const YAML::Node& v, const std::string& name, double lo, double hi, double& out,
               const ReportProblem& report, bool lo_open = false);

/// Every mapping in the tree whose keys repeat: one problem per repeated key, with both lines
/// (yaml-cpp keeps the first and ignores the second silently); and every key that is not a plain
/// name (a list or a mapping as a key). False when there is such a key: the key checks that
/// follow read keys as strings.
bool report_duplicate_keys(const YAML::Node& root, const ReportProblem& report);

}  // namespace exadnn::train::internal
