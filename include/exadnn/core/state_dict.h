// StateDict: an ordered map from names to tensors — the state of a module, an optimizer or a
// whole training run, as checkpoints store it.
#pragma once

#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "exadnn/core/tensor.h"

namespace exadnn {

/// Insertion-ordered name -> tensor map. Names are unique; lookups of a missing name throw an
/// Error that names it.
class StateDict {
 public:
  using Entry = std::pair<std::string, Tensor>;

  /// Adds an entry; throws if the name is taken.
  void insert(const std::string& name, const Tensor& tensor);
  /// Adds or replaces an entry.
  void set(const std::string& name, const Tensor& tensor);
  bool contains(const std::string& name) const { return index_.count(name) != 0; }
  /// The tensor named `name`; throws "no entry 'name'".
  const Tensor& at(const std::string& name) const;
  /// Entries whose names start with `prefix`, with the prefix removed ("layer1." -> weight ...).
  StateDict with_prefix_removed(const std::string& prefix) const;
  /// Adds every entry of `other` under `prefix` + its name.
  void merge(const StateDict& other, const std::string& prefix = "");

  size_t size() const { return entries_.size(); }
  bool empty() const { return entries_.empty(); }
  std::vector<Entry>::const_iterator begin() const { return entries_.begin(); }
  std::vector<Entry>::const_iterator end() const { return entries_.end(); }
  const std::vector<Entry>& entries() const { return entries_; }

 private:
  std::vector<Entry> entries_;
  std::unordered_map<std::string, size_t> index_;
};

}  // namespace exadnn
