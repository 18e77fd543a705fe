// Validation of a parsed control file: every name resolves, the groups form a DAG, channels join
// modules that run together, and the job has the ranks the file asks for.
#include <algorithm>
#include <functional>
#include <map>
#include <set>

#include "exadnn/core/plugin.h"
#include "exadnn/flow/control_file.h"
#include "exadnn/flow/module.h"
#include "flow/control_file_problems.h"

namespace exadnn::flow {

namespace detail {

namespace {

// Reports a cycle among the groups' `after` edges (each cycle once, as "a -> b -> a").
void check_cycles(const ControlFile& cf, Problems& p) {
  const int n = static_cast<int>(cf.groups.size());
  std::map<std::string, int> index;
  for (int i = 0; i < n; ++i) index.emplace(cf.groups[i].name, i);
  std::vector<int> state(n, 0);  // 0 unvisited, 1 on the stack, 2 done
  std::vector<int> stack;
  std::function<void(int)> visit = [&](int g) {
    state[g] = 1;
    stack.push_back(g);
    for (const auto& dep : cf.groups[g].after) {
      const auto it = index.find(dep);
      if (it == index.end()) continue;
      const int d = it->second;
      if (state[d] == 1) {
        std::string path;
        const auto from = std::find(stack.begin(), stack.end(), d);
        for (auto s = from; s != stack.end(); ++s) path += cf.groups[*s].name + " -> ";
        p.add(cf.groups[g].where, cat("dependency cycle among groups: ", path, cf.groups[d].name,
                                      " (each group waits for the next one's 'after')"));
      } else if (state[d] == 0) {
        visit(d);
      }
    }
    stack.pop_back();
    state[g] = 2;
  };
  for (int i = 0; i < n; ++i)
    if (state[i] == 0) visit(i);
}

void check_modules(const ControlFile& cf, Problems& p) {
  for (const auto& m : cf.modules) {
    if (m.run.empty()) continue;  // reported by the parser
    const auto colon = m.run.rfind(':');
    if (colon != std::string::npos) {
      if (colon == 0 || colon + 1 == m.run.size()) {
        p.add(m.where, cat("module '", m.name, "': 'run: ", m.run, "' must be lib.so:symbol"));
      } else {
        try {
          resolve_module(m.run);  // opens the library now, so a wrong path is found before the run
        } catch (const Error& e) {
          p.add(m.where, cat("module '", m.name, "': ", e.what()));
        }
      }
    } else if (!is_module_registered(m.run)) {
      std::string known;
      for (const auto& name : registered_modules()) known += (known.empty() ? "" : ", ") + name;
      p.add(m.where, cat("module '", m.name, "': no module function called '", m.run,
                         "' is registered (registered: ", known.empty() ? "none" : known,
                         "; or use lib.so:symbol)", app_plugin_failures()));
    }
  }
}

void check_groups(const ControlFile& cf, Problems& p) {
  std::map<std::string, std::string> group_of;  // module -> its group
  std::set<std::string> group_names;
  for (const auto& g : cf.groups) {
    if (!g.name.empty() && !group_names.insert(g.name).second)
      p.add(g.where, cat("group '", g.name, "' is declared twice"));
    for (const auto& name : g.modules) {
      if (!cf.find_module(name)) {
        p.add(g.where, cat("group '", g.name, "': unknown module '", name, "'"));
        continue;
      }
      const auto [it, fresh] = group_of.emplace(name, g.name);
      if (!fresh)
        p.add(g.where, cat("module '", name, "' is in groups '", it->second, "' and '", g.name,
                           "' (a module belongs to one group)"));
    }
    // The gang of a group's fixed modules starts at once: its ranks are bounded like one module's.
    int64_t fixed = 0;
    for (const auto& name : g.modules)
      if (const ModuleSpec* m = cf.find_module(name); m && !m->is_ensemble) fixed += m->ranks;
    if (fixed > ControlFileLimits::ranks)
      p.add(g.where, cat("group '", g.name, "' runs modules of ", fixed,
                         " ranks together, above the maximum of ", ControlFileLimits::ranks));
    for (const auto& dep : g.after) {
      if (dep == g.name)
        p.add(g.where, cat("group '", g.name, "' depends on itself"));
      else if (!cf.find_group(dep))
        p.add(g.where, cat("group '", g.name, "': 'after' names unknown group '", dep, "'"));
    }
  }
  for (const auto& m : cf.modules)
    if (!group_of.count(m.name))
      p.add(m.where, cat("module '", m.name, "' is in no group of 'workflow.groups'"));
  check_cycles(cf, p);
}

const GroupSpec* group_of(const ControlFile& cf, const std::string& module) {
  for (const auto& g : cf.groups)
    if (std::find(g.modules.begin(), g.modules.end(), module) != g.modules.end()) return &g;
  return nullptr;
}

void check_channels(const ControlFile& cf, Problems& p) {
  std::set<std::string> names;
  for (const auto& c : cf.channels) {
    if (!c.name.empty() && !names.insert(c.name).second)
      p.add(c.where, cat("channel '", c.name, "' is declared twice"));
    const ModuleSpec* ends[2] = {nullptr, nullptr};
    int k = 0;
    for (const auto* end : {&c.from, &c.to}) {
      if (!end->empty() && !(ends[k] = cf.find_module(*end)))
        p.add(c.where, cat("channel '", c.name, "': unknown module '", *end, "'"));
      if (ends[k] && ends[k]->is_ensemble)
        p.add(c.where, cat("channel '", c.name, "': module '", *end,
                           "' is an ensemble (a channel joins two single-instance modules)"));
      ++k;
    }
    if (!ends[0] || !ends[1]) continue;
    if (ends[0] == ends[1]) {
      p.add(c.where, cat("channel '", c.name, "' goes from module '", c.from, "' to itself"));
      continue;
    }
    const GroupSpec* a = group_of(cf, c.from);
    const GroupSpec* b = group_of(cf, c.to);
    if (a && b && a != b)
      p.add(c.where,
            cat("channel '", c.name, "': modules '", c.from, "' (group '", a->name, "') and '",
                c.to, "' (group '", b->name, "') do not run together; put them in one group"));
  }
}

void check_ranks(const ControlFile& cf, Problems& p, int job_ranks) {
  const int workers = job_ranks - 1 - cf.tuple_space_servers;
  if (workers < 1) {
    p.add_at(
        0, cat("the job has ", job_ranks, " rank", job_ranks == 1 ? "" : "s",
               "; the Executive needs ", 2 + cf.tuple_space_servers,
               " at least (1 scheduler, 1 worker, ", cf.tuple_space_servers, " tuple-space server",
               cf.tuple_space_servers == 1 ? "" : "s", "; run it with mpirun -np P)"));
    return;
  }
  const std::string offer = cat(
      workers, " worker rank", workers == 1 ? "" : "s", " (", job_ranks, " ranks less 1 scheduler",
      cf.tuple_space_servers ? cat(" and ", cf.tuple_space_servers, " tuple-space servers")
                             : std::string(),
      ")");
  for (const auto& g : cf.groups) {
    int64_t fixed = 0;
    int fixed_modules = 0;
    bool has_all = false;
    for (const auto& name : g.modules) {
      const ModuleSpec* m = cf.find_module(name);
      if (!m) continue;
      if (m->ranks > workers)
        p.add(m->where,
              cat("module '", m->name, "' asks for ", m->ranks, " ranks; the job has ", offer));
      if (m->is_ensemble) continue;
      has_all |= m->ranks == 0;
      fixed += m->ranks == 0 ? workers : m->ranks;
      ++fixed_modules;
    }
    // (One module too large for the job is reported above, at the module.)
    if (fixed > workers && fixed_modules > 1)
      p.add(g.where,
            cat("group '", g.name, "' runs modules of ", fixed, " ranks together (",
                has_all ? "'ranks: all' takes every worker; " : "", "the job has ", offer, ")"));
  }
}

}  // namespace

void validate_control_file(const ControlFile& cf, Problems& p, std::optional<int> job_ranks) {
  check_modules(cf, p);
  check_groups(cf, p);
  check_channels(cf, p);
  if (job_ranks) check_ranks(cf, p, *job_ranks);
}

}  // namespace detail

const ModuleSpec* ControlFile::find_module(const std::string& name) const {
  for (const auto& m : modules)
    if (m.name == name) return &m;
  return nullptr;
}

const GroupSpec* ControlFile::find_group(const std::string& name) const {
  for (const auto& g : groups)
    if (g.name == name) return &g;
  return nullptr;
}

std::vector<int> ControlFile::group_order() const {
  // Kahn's algorithm, taking the first ready group in file order each time.
  const int n = static_cast<int>(groups.size());
  std::vector<int> order, done(n, 0);
  while (static_cast<int>(order.size()) < n) {
    bool progressed = false;
    for (int i = 0; i < n && !progressed; ++i) {
      if (done[i]) continue;
      bool ready = true;
      for (const auto& dep : groups[i].after)
        for (int j = 0; j < n; ++j)
          if (groups[j].name == dep && !done[j]) ready = false;
      if (ready) {
        order.push_back(i);
        done[i] = 1;
        progressed = true;
      }
    }
    EXADNN_CHECK(progressed, "flow", "the groups of '", origin, "' have a dependency cycle");
  }
  return order;
}

int ControlFile::min_ranks() const {
  int need = 1;
  for (const auto& g : groups) {
    int fixed = 0;
    for (const auto& name : g.modules) {
      const ModuleSpec* m = find_module(name);
      if (!m) continue;
      const int r = std::max(m->ranks, 1);
      need = std::max(need, r);
      if (!m->is_ensemble) fixed += r;
    }
    need = std::max(need, fixed);
  }
  return 1 + need + tuple_space_servers;
}

ControlFile parse_control_file(const std::string& yaml_text, const std::string& origin,
                               std::optional<int> job_ranks) {
  ControlFile cf;
  cf.origin = origin;
  detail::Problems p(origin);
  detail::parse_control_tree(yaml_text, cf, p);
  if (cf.groups.empty()) {
    // No 'workflow' (or none usable): every module runs in one group.
    GroupSpec all;
    all.name = "main";
    all.where = Location{origin, 0};
    for (const auto& m : cf.modules) all.modules.push_back(m.name);
    cf.groups.push_back(std::move(all));
  }
  detail::validate_control_file(cf, p, job_ranks);
  if (!p.empty()) throw ControlFileError(p.items());
  return cf;
}

}  // namespace exadnn::flow
