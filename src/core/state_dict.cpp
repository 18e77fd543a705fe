#include "exadnn/core/state_dict.h"

namespace exadnn {

void StateDict::insert(const std::string& name, const Tensor& tensor) {
  EXADNN_CHECK(!contains(name), "StateDict", "duplicate entry '", name, "'");
  index_.emplace(name, entries_.size());
  entries_.emplace_back(name, tensor);
}

void StateDict::set(const std::string& name, const Tensor& tensor) {
  auto it = index_.find(name);
  if (it == index_.end()) return insert(name, tensor);
  entries_[it->second].second = tensor;
}

const Tensor& StateDict::at(const std::string& name) const {
  auto it = index_.find(name);
  EXADNN_CHECK(it != index_.end(), "StateDict", "no entry '", name, "'");
  return entries_[it->second].second;
}

StateDict StateDict::with_prefix_removed(const std::string& prefix) const {
  StateDict out;
  for (const auto& [name, t] : entries_)
    if (name.compare(0, prefix.size(), prefix) == 0) out.insert(name.substr(prefix.size()), t);
  return out;
}

void StateDict::merge(const StateDict& other, const std::string& prefix) {
  for (const auto& [name, t] : other) insert(prefix + name, t);
}

}  // namespace exadnn
