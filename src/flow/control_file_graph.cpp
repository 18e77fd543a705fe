// The workflow DAG as text (`exadnn flow graph`) and as Graphviz DOT (`--dot`).
#include <sstream>

#include "exadnn/flow/control_file.h"

namespace exadnn::flow {

namespace {
std::string ranks_text(const ModuleSpec& m) {
  const std::string r =
      m.ranks == 0 ? "all ranks" : exadnn::detail::cat(m.ranks, m.ranks == 1 ? " rank" : " ranks");
  return m.is_ensemble ? exadnn::detail::cat("ensemble of ", m.instances(), " x ", r) : r;
}

std::string join(const std::vector<std::string>& items) {
  std::string out;
  for (const auto& s : items) out += (out.empty() ? "" : ", ") + s;
  return out;
}
}  // namespace

std::string describe_graph(const ControlFile& cf) {
  std::ostringstream os;
  os << "workflow " << cf.origin << ": " << cf.groups.size() << " group"
     << (cf.groups.size() == 1 ? "" : "s") << ", run " << cf.iterations << " time"
     << (cf.iterations == 1 ? "" : "s") << "\n";
  for (int g : cf.group_order()) {
    const GroupSpec& group = cf.groups[g];
    os << "  group " << group.name;
    if (!group.after.empty()) os << "  (after " << join(group.after) << ")";
    os << "\n";
    for (const auto& name : group.modules) {
      const ModuleSpec* m = cf.find_module(name);
      os << "    " << name << ": " << m->run << ", " << ranks_text(*m)
         << (m->on_error == OnError::cont ? ", on_error: continue" : "") << "\n";
    }
  }
  for (const auto& c : cf.channels)
    os << "  channel " << c.name << ": " << c.from << " -> " << c.to << "\n";
  if (cf.tuple_space_servers > 0)
    os << "  tuple space: " << cf.tuple_space_servers << " server rank"
       << (cf.tuple_space_servers == 1 ? "" : "s") << "\n";
  os << "  needs at least " << cf.min_ranks() << " ranks\n";
  return os.str();
}

std::string graph_dot(const ControlFile& cf) {
  std::ostringstream os;
  os << "digraph workflow {\n  compound=true;\n  label=\"" << cf.origin << " (x" << cf.iterations
     << ")\";\n";
  for (size_t g = 0; g < cf.groups.size(); ++g) {
    const GroupSpec& group = cf.groups[g];
    os << "  subgraph cluster_" << g << " {\n    label=\"" << group.name << "\";\n";
    for (const auto& name : group.modules) {
      const ModuleSpec* m = cf.find_module(name);
      os << "    \"" << name << "\" [shape=box, label=\"" << name << "\\n"
         << ranks_text(*m) << "\"];\n";
    }
    if (group.modules.empty()) os << "    \"group " << group.name << "\" [shape=point];\n";
    os << "  }\n";
  }
  // One edge per dependency, from a module of the earlier group to one of the later (clusters as
  // ends).
  auto anchor = [&](const GroupSpec& g) {
    return g.modules.empty() ? "group " + g.name : g.modules.front();
  };
  for (size_t g = 0; g < cf.groups.size(); ++g)
    for (const auto& dep : cf.groups[g].after) {
      const GroupSpec* from = cf.find_group(dep);
      os << "  \"" << anchor(*from) << "\" -> \"" << anchor(cf.groups[g]) << "\" [ltail=cluster_"
         << (from - cf.groups.data()) << ", lhead=cluster_" << g << "];\n";
    }
  for (const auto& c : cf.channels)
    os << "  \"" << c.from << "\" -> \"" << c.to << "\" [style=dashed, label=\"" << c.name
       << "\"];\n";
  os << "}\n";
  return os.str();
}

}  // namespace exadnn::flow
