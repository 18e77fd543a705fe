// Name → factory tables, one per kind of thing a training config names (layers, losses, ...):
// the one place where each name is matched, and open to names a user registers from C++. A name
// no linked code registered is looked for in the application plugins (core/plugin.h) before it
// is called unknown, when the program enabled them (the `exadnn` command does).
#pragma once

#include <map>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "exadnn/core/error.h"
#include "exadnn/core/plugin.h"

namespace exadnn::train {

/// A table of named entries of one kind. Thread-safe; entries are never removed, so a reference
/// returned by at() stays valid.
template <class Entry>
class Registry {
 public:
  /// `kind` names the table in messages: "layer", "loss".
  explicit Registry(std::string kind) : kind_(std::move(kind)) {}

  /// Adds `name`. A name already in the table is an Error (one name, one definition).
  void add(const std::string& name, Entry entry) {
    std::lock_guard<std::mutex> lock(mutex_);
    EXADNN_CHECK(!name.empty(), "train::Registry", "a ", kind_, " needs a name");
    EXADNN_CHECK(!entries_.count(name), "train::Registry", "the ", kind_, " '", name,
                 "' is registered already");
    entries_.emplace(name, std::move(entry));
  }

  /// The entry of `name`; an unknown name is an Error listing the known ones.
  const Entry& at(const std::string& name) const {
    if (const Entry* entry = find(name)) return *entry;
    throw Error("train::Registry", detail::cat("unknown ", kind_, " '", name, "' (known: ", known(),
                                               ")", app_plugin_failures()));
  }

  bool contains(const std::string& name) const { return find(name) != nullptr; }

  /// The registered names, sorted.
  std::vector<std::string> names() const {
    std::lock_guard<std::mutex> lock(mutex_);
    std::vector<std::string> out;
    for (const auto& [name, entry] : entries_) out.push_back(name);
    return out;
  }

  /// The registered names as one list for messages, the application plugins' included: "a, b".
  std::string known() const {
    load_all_app_plugins();
    std::lock_guard<std::mutex> lock(mutex_);
    return known_locked();
  }

  const std::string& kind() const { return kind_; }

 private:
  // The entry of `name`, loading the application plugin that may define it first if no linked code
  // did (without holding the lock: the plugin's registrations take it); nullptr when unknown.
  const Entry* find(const std::string& name) const {
    const auto lookup = [&]() -> const Entry* {
      std::lock_guard<std::mutex> lock(mutex_);
      const auto it = entries_.find(name);
      return it == entries_.end() ? nullptr : &it->second;
    };
    const Entry* entry = lookup();
    if (!entry && load_app_plugins_defining(name, [&] { return lookup() != nullptr; }))
      entry = lookup();
    return entry;
  }

  std::string known_locked() const {
    std::string out;
    for (const auto& [name, entry] : entries_) out += (out.empty() ? "" : ", ") + name;
    return out;
  }

  std::string kind_;
  mutable std::mutex mutex_;
  std::map<std::string, Entry> entries_;
};

}  // namespace exadnn::train
