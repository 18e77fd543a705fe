// Parsing the control file: YAML nodes to the structs of control_file.h. Every problem (unknown
// key, wrong type, missing field) is collected with its line; validation of the whole (names,
// cycles, ranks) is in control_file_validate.cpp.
#include <yaml-cpp/yaml.h>

#include <fstream>
#include <set>
#include <sstream>

#include "exadnn/flow/control_file.h"
#include "flow/control_file_problems.h"

namespace exadnn::flow {

namespace {

using detail::Problems;

// True when `node` is a map; otherwise reports that `what` must be one.
bool expect_map(Problems& p, const YAML::Node& node, const std::string& what) {
  if (node.IsMap()) return true;
  p.add(node, exadnn::detail::cat(what, " must be a map (key: value)"));
  return false;
}

bool expect_seq(Problems& p, const YAML::Node& node, const std::string& what) {
  if (node.IsSequence()) return true;
  p.add(node, exadnn::detail::cat(what, " must be a list"));
  return false;
}

// Reports every key of `node` not in `allowed`.
void check_keys(Problems& p, const YAML::Node& node, const std::string& what,
                const std::set<std::string>& allowed) {
  for (const auto& kv : node) {
    const std::string key = kv.first.Scalar();
    if (allowed.count(key)) continue;
    std::string list;
    for (const auto& a : allowed) list += (list.empty() ? "" : ", ") + a;
    p.add(kv.first,
          exadnn::detail::cat("unknown key '", key, "' in ", what, " (allowed: ", list, ")"));
  }
}

std::optional<std::string> get_string(Problems& p, const YAML::Node& node,
                                      const std::string& what) {
  if (node.IsScalar()) return node.Scalar();
  p.add(node, exadnn::detail::cat(what, " must be a string"));
  return std::nullopt;
}

// An integer from `min` to `max` (a ControlFileLimits count, checked before anything is sized
// by it).
std::optional<int> get_int(Problems& p, const YAML::Node& node, const std::string& what, int min,
                           int max) {
  long long v = 0;
  const bool integer = node.IsScalar() && YAML::convert<long long>::decode(node, v);
  if (integer && v >= min && v <= max) return static_cast<int>(v);
  if (integer && v > max)
    p.add(node, exadnn::detail::cat(what, " is ", node.Scalar(), ", above the maximum of ", max));
  else
    p.add(node, exadnn::detail::cat(
                    what, " must be an integer >= ", min, ", got ",
                    node.IsScalar() ? "'" + node.Scalar() + "'" : std::string("a non-scalar")));
  return std::nullopt;
}

// Counts instances over the whole file, so that many large ensembles cannot add up past the
// limit either.
bool take_instances(Problems& p, const YAML::Node& node, const std::string& what, int n,
                    int& total) {
  if (n > ControlFileLimits::instances - total) {
    p.add(node, exadnn::detail::cat(what, " brings the file's instances to ", int64_t{total} + n,
                                    ", above the maximum of ", ControlFileLimits::instances,
                                    " per iteration"));
    return false;
  }
  total += n;
  return true;
}

std::vector<std::string> get_names(Problems& p, const YAML::Node& node, const std::string& what) {
  std::vector<std::string> out;
  if (node.IsScalar()) return {node.Scalar()};  // `after: prepare` is a list of one
  if (!expect_seq(p, node, what)) return out;
  for (const auto& item : node)
    if (auto s = get_string(p, item, what + " entries")) out.push_back(*s);
  return out;
}

Args parse_args(Problems& p, const YAML::Node& node, const std::string& what) {
  Args args;
  if (!expect_map(p, node, what)) return args;
  for (const auto& kv : node) {
    const std::string key = kv.first.Scalar();
    if (!kv.second.IsScalar()) {
      p.add(kv.second,
            exadnn::detail::cat(what, " '", key, "' must be a scalar (number, string or bool)"));
      continue;
    }
    args[key] = ArgValue{kv.second.Scalar(), p.where(kv.second)};
  }
  return args;
}

void parse_ensemble(Problems& p, const YAML::Node& node, ModuleSpec& m, int& instances) {
  const std::string what = "ensemble of module '" + m.name + "'";
  m.is_ensemble = true;
  if (!expect_map(p, node, what)) return;
  check_keys(p, node, what, {"parameters", "instances"});
  const YAML::Node params = node["parameters"], count = node["instances"];
  if (params && count) p.add(node, what + ": give 'parameters' or 'instances', not both");
  if (params) {
    if (!expect_seq(p, params, what + " 'parameters'")) return;
    if (params.size() > static_cast<size_t>(ControlFileLimits::instances)) {
      p.add(params,
            exadnn::detail::cat(what, " 'parameters' has ", params.size(),
                                " entries, above the maximum of ", ControlFileLimits::instances));
      return;
    }
    if (!take_instances(p, params, what + " 'parameters'", static_cast<int>(params.size()),
                        instances))
      return;
    for (const auto& entry : params)
      m.ensemble.push_back(parse_args(p, entry, what + " parameter entry"));
    if (m.ensemble.empty()) p.add(params, what + " 'parameters' is empty");
  } else if (count) {
    const auto n = get_int(p, count, what + " 'instances'", 1, ControlFileLimits::instances);
    if (n && take_instances(p, count, what + " 'instances'", *n, instances))
      m.ensemble.assign(*n, Args{});
  } else {
    p.add(node, what + " needs 'parameters' (a list of argument maps) or 'instances' (a count)");
  }
}

ModuleSpec parse_module(Problems& p, const YAML::Node& key, const YAML::Node& node,
                        int& instances) {
  ModuleSpec m;
  m.name = key.Scalar();
  m.where = p.where(key);
  const std::string what = "module '" + m.name + "'";
  if (!expect_map(p, node, what)) return m;
  check_keys(p, node, what, {"run", "ranks", "args", "on_error", "ensemble", "description"});
  if (const auto run = node["run"]) {
    if (auto s = get_string(p, run, what + " 'run'")) m.run = *s;
  } else {
    p.add(key, what + ": 'run' is missing (a registered module name, or lib.so:symbol)");
  }
  if (const auto ranks = node["ranks"]) {
    if (ranks.IsScalar() && ranks.Scalar() == "all")
      m.ranks = 0;
    else if (auto n = get_int(p, ranks, what + " 'ranks' (or 'all')", 1, ControlFileLimits::ranks))
      m.ranks = *n;
  }
  if (const auto args = node["args"]) m.args = parse_args(p, args, what + " 'args'");
  if (const auto on_error = node["on_error"]) {
    const auto s = get_string(p, on_error, what + " 'on_error'");
    if (s && *s == "stop")
      m.on_error = OnError::stop;
    else if (s && *s == "continue")
      m.on_error = OnError::cont;
    else if (s)
      p.add(on_error,
            exadnn::detail::cat(what, " 'on_error' must be stop or continue, got '", *s, "'"));
  }
  if (const auto ensemble = node["ensemble"]) parse_ensemble(p, ensemble, m, instances);
  if (const auto description = node["description"])
    get_string(p, description, what + " 'description'");
  return m;
}

GroupSpec parse_group(Problems& p, const YAML::Node& node, int index) {
  GroupSpec g;
  g.where = p.where(node);
  const std::string what = exadnn::detail::cat("group ", index + 1);
  if (!expect_map(p, node, what)) return g;
  check_keys(p, node, what, {"name", "modules", "after"});
  if (const auto name = node["name"]) {
    if (auto s = get_string(p, name, what + " 'name'")) g.name = *s;
  } else {
    p.add(node, what + ": 'name' is missing");
  }
  const std::string named = g.name.empty() ? what : "group '" + g.name + "'";
  if (const auto modules = node["modules"])
    g.modules = get_names(p, modules, named + " 'modules'");
  else
    p.add(node, named + ": 'modules' is missing (a list of module names)");
  if (const auto after = node["after"]) g.after = get_names(p, after, named + " 'after'");
  return g;
}

void parse_workflow(Problems& p, const YAML::Node& node, ControlFile& cf) {
  if (!expect_map(p, node, "'workflow'")) return;
  check_keys(p, node, "'workflow'", {"groups", "iterations"});
  if (const auto it = node["iterations"]) {
    if (auto n = get_int(p, it, "'workflow.iterations'", 1, ControlFileLimits::iterations))
      cf.iterations = *n;
  }
  if (const auto groups = node["groups"]) {
    if (!expect_seq(p, groups, "'workflow.groups'")) return;
    int index = 0;
    for (const auto& g : groups) cf.groups.push_back(parse_group(p, g, index++));
  } else {
    p.add(node, "'workflow.groups' is missing (a list of {name, modules, after})");
  }
}

void parse_channels(Problems& p, const YAML::Node& node, ControlFile& cf) {
  if (!expect_seq(p, node, "'channels'")) return;
  if (node.size() > static_cast<size_t>(ControlFileLimits::channels)) {
    p.add(node,
          exadnn::detail::cat("'channels' has ", node.size(), " entries, above the maximum of ",
                              ControlFileLimits::channels));
    return;
  }
  int index = 0;
  for (const auto& item : node) {
    ChannelSpec c;
    c.where = p.where(item);
    const std::string what = exadnn::detail::cat("channel ", ++index);
    if (!expect_map(p, item, what)) continue;
    check_keys(p, item, what, {"name", "from", "to"});
    for (auto [key, field] : {std::pair{"name", &c.name}, {"from", &c.from}, {"to", &c.to}}) {
      if (const auto v = item[key]) {
        if (auto s = get_string(p, v, what + " '" + key + "'")) *field = *s;
      } else {
        p.add(item, exadnn::detail::cat(what, ": '", key, "' is missing"));
      }
    }
    cf.channels.push_back(std::move(c));
  }
}

}  // namespace

std::string Location::str() const {
  return line > 0 ? exadnn::detail::cat(file, ":", line) : file;
}

ControlFileError::ControlFileError(std::vector<std::string> problems)
    : Error("flow control file",
            [&] {
              std::string text = exadnn::detail::cat(problems.size(), " problem",
                                                     problems.size() == 1 ? "" : "s", ":");
              for (const auto& line : problems) text += "\n  " + line;
              return text;
            }()),
      problems_(std::move(problems)) {}

namespace detail {
void parse_control_tree(const std::string& yaml_text, ControlFile& cf, Problems& p) {
  YAML::Node root;
  try {
    root = YAML::Load(yaml_text);
  } catch (const YAML::Exception& e) {
    p.add_at(e.mark.line + 1, "invalid YAML: " + e.msg);
    return;
  }
  if (!root.IsMap()) {
    p.add_at(0, "the control file must be a map with 'modules' (and 'workflow', 'channels', ...)");
    return;
  }
  check_keys(p, root, "the control file",
             {"modules", "workflow", "channels", "tuple_space", "timeline"});
  if (const auto modules = root["modules"]) {
    int instances = 0;  // of every module so far
    if (expect_map(p, modules, "'modules'"))
      for (const auto& kv : modules)
        cf.modules.push_back(parse_module(p, kv.first, kv.second, instances));
  } else {
    p.add_at(0, "'modules' is missing (a map of module name to {run, ranks, args, ...})");
  }
  if (const auto workflow = root["workflow"]) parse_workflow(p, workflow, cf);
  if (const auto channels = root["channels"]) parse_channels(p, channels, cf);
  if (const auto ts = root["tuple_space"]) {
    if (expect_map(p, ts, "'tuple_space'")) {
      check_keys(p, ts, "'tuple_space'", {"servers"});
      if (const auto servers = ts["servers"]) {
        if (auto n = get_int(p, servers, "'tuple_space.servers'", 1, ControlFileLimits::ranks))
          cf.tuple_space_servers = *n;
      } else {
        p.add(ts, "'tuple_space.servers' is missing (how many ranks serve the tuple space)");
      }
    }
  }
  if (const auto timeline = root["timeline"]) {
    if (auto s = get_string(p, timeline, "'timeline'")) cf.timeline = *s;
  }
}
}  // namespace detail

std::string read_text_file(const std::string& path) {
  std::ifstream in(path);
  EXADNN_CHECK(in.good(), "flow", "cannot read '", path, "'");
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

ControlFile load_control_file(const std::string& path, std::optional<int> job_ranks) {
  return parse_control_file(read_text_file(path), path, job_ranks);
}

}  // namespace exadnn::flow
