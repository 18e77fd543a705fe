#include "config_values.h"

#include <charconv>
#include <cmath>
#include <cstdlib>
#include <map>

#include "exadnn/core/error.h"

namespace exadnn::train::internal {

std::string describe_value(const YAML::Node& v) {
  if (!v || v.IsNull()) return "nothing (an empty value)";
  if (v.IsSequence()) return "a list";
  if (v.IsMap()) return "a mapping";
  return "'" + v.Scalar() + "'";
}

bool read_count(const YAML::Node& v, const std::string& name, int64_t lo, int64_t hi, int64_t& out,
                const ReportProblem& report) {
  if (!v) return false;
  const auto refuse = [&] {
    report(v, detail::cat("'", name, "' must be a whole number from ", lo, " to ", hi, ", got ",
                          describe_value(v)));
    return false;
  };
  if (!v.IsScalar()) return refuse();
  const std::string& text = v.Scalar();
  int64_t value = 0;
  const char* first = text.data() + (text.starts_with('+') ? 1 : 0);
  const auto [end, ec] = std::from_chars(first, text.data() + text.size(), value);
  if (ec != std::errc() || end != text.data() + text.size() || value < lo || value > hi)
    return refuse();
  out = value;
  return true;
}

bool read_count(const YAML::Node& v, const std::string& name, int64_t lo, int64_t hi, int& out,
                const ReportProblem& report) {
  int64_t value = out;
  if (!read_count(v, name, lo, hi, value, report)) return false;
  out = static_cast<int>(value);
  return true;
}

bool read_real(const YAML::Node& v, const std::string& name, double lo, double hi, double& out,
               const ReportProblem& report, bool lo_open) {
  if (!v) return false;
  double value = NAN;
  if (v.IsScalar()) {
    try {
      value = v.as<double>();  // YAML's .inf and .nan too
    } catch (const YAML::Exception&) {
      value = NAN;
    }
  }
  const bool in_range = std::isfinite(value) && (lo_open ? value > lo : value >= lo) && value <= hi;
  if (!in_range) {
    const std::string range = std::isinf(hi) ? detail::cat(lo_open ? "above " : "of at least ", lo)
                                             : detail::cat(lo_open ? "above " : "from ", lo,
                                                           lo_open ? " up to " : " to ", hi);
    report(v, detail::cat("'", name, "' must be a finite number ", range, ", got ",
                          describe_value(v)));
    return false;
  }
  out = value;
  return true;
}

bool report_duplicate_keys(const YAML::Node& root, const ReportProblem& report) {
  bool plain = true;
  if (root.IsSequence()) {
    for (const YAML::Node& item : root) plain = report_duplicate_keys(item, report) && plain;
    return plain;
  }
  if (!root.IsMap()) return true;
  std::map<std::string, int> first_line;
  for (auto it = root.begin(); it != root.end(); ++it) {
    if (!it->first.IsScalar()) {
      report(it->first, detail::cat("a key must be a plain name, got ", describe_value(it->first)));
      plain = false;
    }
    const std::string key = it->first.IsScalar() ? it->first.Scalar() : "";
    const int line = it->first.Mark().line + 1;
    const auto [seen, inserted] = first_line.emplace(key, line);
    if (!inserted)
      report(it->first,
             detail::cat("key '", key, "' appears twice in one mapping (lines ", seen->second,
                         " and ", line, "); only the first would be used: remove one"));
    plain = report_duplicate_keys(it->second, report) && plain;
  }
  return plain;
}

}  // namespace exadnn::train::internal
