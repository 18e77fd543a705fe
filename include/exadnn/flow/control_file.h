// The workflow control file (YAML): modules, the workflow DAG of groups, channels and the tuple
// space, parsed into plain structs and validated before anything runs. The schema is described in
// docs/workflows.md. Every problem found is collected and reported together, each with the file
// and line it comes from.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "exadnn/core/error.h"

namespace exadnn::flow {

/// The largest counts a control file may ask for (docs/workflows.md). Larger ones are reported
/// with their key and line, before anything is allocated for them.
struct ControlFileLimits {
  /// `modules.<name>.ranks`, `tuple_space.servers`, and the ranks a group's fixed modules take
  /// together.
  static constexpr int ranks = 1 << 20;
  /// Instances of one module (`ensemble.instances` or the `ensemble.parameters` entries), and of
  /// all modules of the file together: the tasks of one iteration.
  static constexpr int instances = 1'000'000;
  /// `workflow.iterations`.
  static constexpr int iterations = 1'000'000;
  /// Channels of the file (each uses two MPI tags; MPI guarantees tags up to 32767).
  static constexpr int channels = 16'383;
};

/// A place in the control file, for messages ("sweep.yaml:12").
struct Location {
  std::string file;  ///< the file name (or the origin given to parse_control_file)
  int line = 0;      ///< 1-based; 0 when unknown
  /// "file:line".
  std::string str() const;
};

/// A module argument: a YAML scalar kept as written (typed when a module reads it, see
/// ModuleContext::arg) and where it was written.
struct ArgValue {
  std::string text;  ///< the scalar as written ("0.1", "true", "adam")
  Location where;    ///< where it was written
};

/// A module's arguments by name.
using Args = std::map<std::string, ArgValue>;

/// What a module does when one of its instances throws.
enum class OnError { stop, cont };

/// One module of the control file.
struct ModuleSpec {
  std::string name;                  ///< unique name
  std::string run;                   ///< a registered function, or "lib.so:symbol"
  int ranks = 1;                     ///< ranks per instance; 0 means every worker rank ("all")
  Args args;                         ///< arguments given to every instance
  OnError on_error = OnError::stop;  ///< stop the workflow, or carry on
  /// Ensemble: one instance per entry, each entry's values overriding `args`; empty: one
  /// instance (not an ensemble).
  std::vector<Args> ensemble;
  bool is_ensemble = false;  ///< declared with `ensemble:` (even with one entry)
  Location where;            ///< where the module was declared

  /// Instances per group run: the ensemble's size, or 1.
  int instances() const { return is_ensemble ? static_cast<int>(ensemble.size()) : 1; }
};

/// A group of modules that run side by side once every group in `after` has finished.
struct GroupSpec {
  std::string name;                  ///< unique name
  std::vector<std::string> modules;  ///< module names (each in at most one group)
  std::vector<std::string> after;    ///< groups that must finish first
  Location where;                    ///< where the group was declared
};

/// A named direct link from one module to another (both in the same group).
struct ChannelSpec {
  std::string name;  ///< unique name
  std::string from;  ///< sending module
  std::string to;    ///< receiving module
  Location where;    ///< where the channel was declared
};

/// A parsed (and, after validate(), checked) control file.
struct ControlFile {
  std::string origin;                 ///< file name, for messages
  std::vector<ModuleSpec> modules;    ///< in file order
  std::vector<GroupSpec> groups;      ///< in file order
  int iterations = 1;                 ///< times the whole DAG of groups runs, one after the other
  std::vector<ChannelSpec> channels;  ///< in file order
  int tuple_space_servers = 0;        ///< ranks reserved to serve the tuple space (0: none)
  std::string timeline;               ///< where to write the Chrome-trace timeline ("" = nowhere)

  /// The module called `name`, or nullptr.
  const ModuleSpec* find_module(const std::string& name) const;
  /// The group called `name`, or nullptr.
  const GroupSpec* find_group(const std::string& name) const;
  /// The groups in an order that respects `after` (file order among independent ones); requires a
  /// validated file.
  std::vector<int> group_order() const;
  /// Ranks the Executive needs at least: one scheduler, the largest group's fixed modules or the
  /// largest instance, and the tuple-space servers.
  int min_ranks() const;
};

/// Thrown when a control file has problems; what() lists every one, each on its own line as
/// "file:line: message".
class ControlFileError : public Error {
 public:
  /// `problems`: each "file:line: message".
  explicit ControlFileError(std::vector<std::string> problems);
  /// Every problem found, each "file:line: message".
  const std::vector<std::string>& problems() const { return problems_; }

 private:
  std::vector<std::string> problems_;
};

/// Parses YAML text (`origin` names it in messages) and validates it. `job_ranks` (if given) is
/// the size of the MPI job, checked against what the file asks for. Throws ControlFileError
/// listing every problem.
ControlFile parse_control_file(const std::string& yaml_text, const std::string& origin,
                               std::optional<int> job_ranks = std::nullopt);
/// Reads a file and parses it as parse_control_file does.
ControlFile load_control_file(const std::string& path, std::optional<int> job_ranks = std::nullopt);
/// The text of a file (an Error naming it if it cannot be read).
std::string read_text_file(const std::string& path);

/// The DAG as text: one line per group (its modules, ranks, ensembles and dependencies), then
/// channels, tuple space and iterations.
std::string describe_graph(const ControlFile& file);
/// The DAG in Graphviz DOT: groups as clusters of modules, edges for `after` and channels.
std::string graph_dot(const ControlFile& file);

}  // namespace exadnn::flow
