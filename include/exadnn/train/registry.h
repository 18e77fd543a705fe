// Name → factory tables, one per kind of thing a training config names (layers, losses, ...):
// the one place where each name is matched, and open to names a user registers from C++.
#pragma once

#include <map>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "exadnn/core/error.h"

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
    std::lock_guard<std::mutex> lock(mutex_);
    const auto it = entries_.find(name);
    if (it == entries_.end())
      throw Error("train::Registry",
                  detail::cat("unknown ", kind_, " '", name, "' (known: ", known_locked(), ")"));
    return it->second;
  }

  bool contains(const std::string& name) const {
    std::lock_guard<std::mutex> lock(mutex_);
    return entries_.count(name) != 0;
  }

  /// The registered names, sorted.
  std::vector<std::string> names() const {
    std::lock_guard<std::mutex> lock(mutex_);
    std::vector<std::string> out;
    for (const auto& [name, entry] : entries_) out.push_back(name);
    return out;
  }

  /// The registered names as one list for messages: "a, b, c".
  std::string known() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return known_locked();
  }

  const std::string& kind() const { return kind_; }

 private:
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
