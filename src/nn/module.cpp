#include "exadnn/nn/module.h"

#include <sstream>

#include "exadnn/autograd/grad_mode.h"
#include "exadnn/ops/inplace.h"

namespace exadnn::nn {

template <class F>
void Module::visit(bool params, const std::string& prefix, F&& f) const {
  for (const auto& [name, member] : params ? parameters_ : buffers_) f(prefix + name, member);
  for (const auto& [name, child] : children_) child->visit(params, prefix + name + ".", f);
}

namespace {

// "(x, skip)": the input names for messages.
std::string listed(const std::vector<std::string>& names) {
  std::string out = "(";
  for (size_t i = 0; i < names.size(); ++i) out += (i ? ", " : "") + names[i];
  return out + ")";
}

}  // namespace

Tensor Module::forward(const std::vector<Tensor>& inputs) {
  const std::vector<std::string> names = input_names();
  EXADNN_CHECK(inputs.size() == names.size(), name(), "takes ", names.size(),
               names.size() == 1 ? " input " : " inputs ", listed(names), ", got ", inputs.size());
  for (size_t i = 0; i < inputs.size(); ++i)
    EXADNN_CHECK(inputs[i].defined(), name(), "input '", names[i], "' is undefined");
  return inputs.size() == 1 ? forward(inputs[0]) : forward_inputs(inputs);
}

Tensor Module::forward_inputs(const std::vector<Tensor>& inputs) {
  throw Error(name(), detail::cat("declares ", inputs.size(), " inputs ", listed(input_names()),
                                  " but does not override forward_inputs"));
}

void Module::register_parameter(const std::string& name, Tensor* member) {
  EXADNN_CHECK(member != nullptr && member->defined(), this->name(), "parameter '", name,
               "' is undefined");
  for (const auto& [existing, _] : parameters_)
    EXADNN_CHECK(existing != name, this->name(), "parameter '", name, "' registered twice");
  if (!member->requires_grad()) member->requires_grad_(true);
  parameters_.emplace_back(name, member);
}

void Module::register_buffer(const std::string& name, Tensor* member) {
  EXADNN_CHECK(member != nullptr && member->defined(), this->name(), "buffer '", name,
               "' is undefined");
  buffers_.emplace_back(name, member);
}

void Module::add_child(const std::string& name, std::shared_ptr<Module> child) {
  EXADNN_CHECK(child != nullptr, this->name(), "child module '", name, "' is null");
  for (const auto& [existing, _] : children_)
    EXADNN_CHECK(existing != name, this->name(), "child module '", name, "' registered twice");
  children_.emplace_back(name, std::move(child));
}

std::vector<std::pair<std::string, Tensor>> Module::named_parameters() const {
  std::vector<std::pair<std::string, Tensor>> out;
  visit(true, "", [&](const std::string& path, Tensor* t) { out.emplace_back(path, *t); });
  return out;
}

std::vector<Tensor> Module::parameters() const {
  std::vector<Tensor> out;
  visit(true, "", [&](const std::string&, Tensor* t) { out.push_back(*t); });
  return out;
}

std::vector<std::pair<std::string, Tensor>> Module::named_buffers() const {
  std::vector<std::pair<std::string, Tensor>> out;
  visit(false, "", [&](const std::string& path, Tensor* t) { out.emplace_back(path, *t); });
  return out;
}

int64_t Module::parameter_count() const {
  int64_t n = 0;
  visit(true, "", [&](const std::string&, Tensor* t) { n += t->numel(); });
  return n;
}

void Module::train(bool on) {
  training_ = on;
  for (auto& [_, child] : children_) child->train(on);
}

void Module::to(DType dtype) {
  NoGradGuard no_grad;
  visit(true, "", [&](const std::string&, Tensor* t) {
    if (!is_floating(t->dtype()) || t->dtype() == dtype) return;
    *t = t->detach().to(dtype);
    t->requires_grad_(true);
  });
  visit(false, "", [&](const std::string&, Tensor* t) {
    if (is_floating(t->dtype())) *t = t->to(dtype);
  });
}

void Module::bind_parameters(const std::vector<Tensor>& values) {
  std::vector<std::pair<std::string, Tensor*>> members;
  visit(true, "", [&](const std::string& path, Tensor* t) { members.emplace_back(path, t); });
  EXADNN_CHECK(values.size() == members.size(), name(), "bind_parameters: ", values.size(),
               " tensors for ", members.size(), " parameters");
  for (size_t i = 0; i < members.size(); ++i) {
    const Tensor& old = *members[i].second;
    EXADNN_CHECK(!values[i].defined() || !old.defined() || values[i].shape() == old.shape(), name(),
                 "bind_parameters: parameter '", members[i].first, "' has shape ", old.shape(),
                 ", got ", values[i].shape());
  }
  for (size_t i = 0; i < members.size(); ++i) *members[i].second = values[i];
}

void Module::to(Device device) {
  NoGradGuard no_grad;
  visit(true, "", [&](const std::string&, Tensor* t) {
    if (t->device() == device) return;
    *t = t->detach().to(device);
    t->requires_grad_(true);
  });
  visit(false, "", [&](const std::string&, Tensor* t) { *t = t->to(device); });
}

StateDict Module::state_dict() const {
  StateDict out;
  visit(true, "", [&](const std::string& path, Tensor* t) { out.insert(path, t->detach()); });
  visit(false, "", [&](const std::string& path, Tensor* t) { out.insert(path, t->detach()); });
  return out;
}

void Module::load_state_dict(const StateDict& state, bool strict) {
  NoGradGuard no_grad;
  size_t used = 0;
  auto load = [&](const std::string& path, Tensor* t) {
    if (!state.contains(path)) {
      EXADNN_CHECK(!strict, "load_state_dict", "missing entry '", path, "' (shape ", t->shape(),
                   ") in the state dict");
      return;
    }
    const Tensor& src = state.at(path);
    EXADNN_CHECK(src.shape() == t->shape(), "load_state_dict", "entry '", path, "' has shape ",
                 src.shape(), " but the model's is ", t->shape());
    copy_(*t, src.to(t->device()));
    ++used;
  };
  visit(true, "", load);
  visit(false, "", load);
  if (strict && used != state.size()) {
    std::vector<std::string> known;
    visit(true, "", [&](const std::string& path, Tensor*) { known.push_back(path); });
    visit(false, "", [&](const std::string& path, Tensor*) { known.push_back(path); });
    for (const auto& [name, _] : state) {
      bool found = false;
      for (const auto& k : known) found = found || k == name;
      EXADNN_CHECK(found, "load_state_dict", "unexpected entry '", name,
                   "' in the state dict (the model has no such parameter or buffer)");
    }
  }
}

void Module::zero_grad() {
  visit(true, "", [&](const std::string&, Tensor* t) { t->zero_grad(); });
}

std::string Module::repr() const {
  std::ostringstream os;
  os << name() << '(' << extra_repr();
  if (!children_.empty()) {
    os << '\n';
    for (const auto& [child_name, child] : children_) {
      std::string sub = child->repr();
      std::string indented;
      for (char c : sub) indented += c == '\n' ? std::string("\n  ") : std::string(1, c);
      os << "  (" << child_name << "): " << indented << '\n';
    }
  }
  os << ')';
  return os.str();
}

}  // namespace exadnn::nn
