// The problems found in a control file, collected with their lines so one run reports them all
// (internal to the flow library: yaml-cpp types stay out of the public headers).
#pragma once

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "exadnn/flow/control_file.h"

namespace exadnn::flow::detail {

using exadnn::detail::cat;

/// Every problem of one file, each "file:line: message"; items() gives them by line (problems of
/// the whole file first), in the order found within a line.
class Problems {
 public:
  explicit Problems(std::string origin) : origin_(std::move(origin)) {}
  /// Where `node` was written.
  Location where(const YAML::Node& node) const {
    const int line = node.IsDefined() && node.Mark().line >= 0 ? node.Mark().line + 1 : 0;
    return Location{origin_, line};
  }
  /// A problem at `node`.
  void add(const YAML::Node& node, const std::string& message) { add(where(node), message); }
  /// A problem at a known place.
  void add(const Location& at, const std::string& message) {
    items_.emplace_back(at.line, at.str() + ": " + message);
  }
  /// A problem at a line of this file (0: the file as a whole).
  void add_at(int line, const std::string& message) { add(Location{origin_, line}, message); }
  std::vector<std::string> items() const {
    auto sorted = items_;
    std::stable_sort(sorted.begin(), sorted.end(),
                     [](const auto& a, const auto& b) { return a.first < b.first; });
    std::vector<std::string> out;
    for (auto& item : sorted) out.push_back(std::move(item.second));
    return out;
  }
  /// True when no problem was found.
  bool empty() const { return items_.empty(); }

 private:
  std::string origin_;
  std::vector<std::pair<int, std::string>> items_;  // (line, text)
};

/// Fills `cf` from YAML text, adding to `p` every problem of form (keys, types, missing fields).
void parse_control_tree(const std::string& yaml_text, ControlFile& cf, Problems& p);

/// Adds to `p` every problem of meaning: unknown or duplicate names, cycles, channels between
/// modules that do not run together, more ranks than `job_ranks` offers.
void validate_control_file(const ControlFile& cf, Problems& p, std::optional<int> job_ranks);

}  // namespace exadnn::flow::detail
