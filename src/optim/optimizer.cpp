// Optimizer base: parameter checks, the step loop, state buffers and their checkpoint form.
#include "exadnn/optim/optimizer.h"

#include <cmath>
#include <unordered_map>
#include <utility>

#include "exadnn/autograd/grad_mode.h"
#include "exadnn/core/profiler.h"
#include "exadnn/ops/factories.h"
#include "exadnn/ops/inplace.h"

namespace exadnn::optim {

namespace {

// What one state entry must look like: a 0-d counter/scalar, or a tensor like a parameter.
struct Expected {
  std::string name;
  bool scalar = false;
  const Tensor* like = nullptr;  // for buffers: the parameter
  size_t param = 0;
  DType dtype = DType::f32;  // what state_dict() writes: f64 for lr, i64 for step counts
};

bool sixteen_bit(DType t) {
  return t == DType::f16 || t == DType::bf16;
}
// The dtype updates and state buffers of a parameter use: f32 for 16-bit parameters.
DType state_dtype(const Tensor& p) {
  return sixteen_bit(p.dtype()) ? DType::f32 : p.dtype();
}

}  // namespace

Optimizer::Optimizer(std::vector<Tensor> params, double lr, std::string name)
    : params_(std::move(params)), name_(std::move(name)), lr_(lr), initial_lr_(lr) {
  EXADNN_CHECK(!params_.empty(), where(), "got an empty parameter list");
  EXADNN_CHECK(std::isfinite(lr) && lr >= 0.0, where(), "invalid learning rate ", lr,
               " (must be >= 0)");
  std::unordered_map<const TensorImpl*, size_t> seen;
  for (size_t i = 0; i < params_.size(); ++i) {
    const Tensor& p = params_[i];
    EXADNN_CHECK(p.defined(), where(), "parameter ", i, " is an undefined tensor");
    EXADNN_CHECK(is_floating(p.dtype()), where(), "parameter ", i, " has dtype ",
                 dtype_name(p.dtype()), "; only floating-point tensors can be optimized");
    EXADNN_CHECK(p.is_leaf(), where(), "parameter ", i, " (shape ", p.shape(),
                 ") is not a leaf tensor: it was produced by an op; optimize the tensor it came "
                 "from, or detach() it and call requires_grad_()");
    EXADNN_CHECK(p.requires_grad(), where(), "parameter ", i, " (shape ", p.shape(),
                 ") does not require grad; call requires_grad_() on it or leave it out");
    auto [it, fresh] = seen.emplace(p.impl_ptr().get(), i);
    EXADNN_CHECK(fresh, where(), "parameters ", it->second, " and ", i, " are the same tensor");
  }
  param_steps_.assign(params_.size(), 0);
  set_master_weights(true);
}

void Optimizer::set_master_weights(bool enabled) {
  NoGradGuard no_grad;
  master_weights_ = enabled;
  masters_.assign(params_.size(), Tensor());
  for (size_t i = 0; i < params_.size(); ++i)
    if (enabled && sixteen_bit(params_[i].dtype()))
      masters_[i] = params_[i].detach().to(DType::f32).contiguous();
}

const Tensor& Optimizer::master(size_t index) const {
  EXADNN_CHECK(index < params_.size(), where(), "no parameter ", index, " (there are ",
               params_.size(), ")");
  return masters_[index];
}

void Optimizer::set_lr(double lr) {
  EXADNN_CHECK(std::isfinite(lr) && lr >= 0.0, where(), "invalid learning rate ", lr,
               " (must be >= 0)");
  lr_ = lr;
}

int64_t Optimizer::param_step_count(size_t index) const {
  EXADNN_CHECK(index < params_.size(), where(), "no parameter ", index, " (there are ",
               params_.size(), ")");
  return param_steps_[index];
}

void Optimizer::add_buffer(const std::string& buffer, double value) {
  Buffer b{buffer, {}};
  b.per_param.reserve(params_.size());
  for (const Tensor& p : params_)
    b.per_param.push_back(full(p.shape(), value, TensorOptions(state_dtype(p)).device(p.device())));
  buffers_.push_back(std::move(b));
}

const Tensor& Optimizer::state(size_t index, const std::string& buffer) const {
  EXADNN_CHECK(index < params_.size(), where(), "no parameter ", index, " (there are ",
               params_.size(), ")");
  for (const Buffer& b : buffers_)
    if (b.name == buffer) return b.per_param[index];
  throw Error(where(), detail::cat("no state buffer '", buffer, "'"));
}

void Optimizer::step() {
  const profiler::Region region(profiler::Phase::optimizer, "optimizer");
  NoGradGuard no_grad;
  ++step_count_;
  for (size_t i = 0; i < params_.size(); ++i) {
    const Tensor& p = params_[i];
    Tensor g = p.grad();
    if (!g.defined()) continue;
    EXADNN_CHECK(g.shape() == p.shape(), where(), "gradient of parameter ", i, " has shape ",
                 g.shape(), " but the parameter has shape ", p.shape());
    EXADNN_CHECK(g.dtype() == p.dtype() || (sixteen_bit(p.dtype()) && g.dtype() == DType::f32),
                 where(), "gradient of parameter ", i, " has dtype ", dtype_name(g.dtype()),
                 " but the parameter has dtype ", dtype_name(p.dtype()));
    EXADNN_CHECK(g.device() == p.device(), where(), "gradient of parameter ", i,
                 " is on another device than the parameter");
    ++param_steps_[i];
    try {
      if (!g.is_contiguous()) g = g.contiguous();
      if (sixteen_bit(p.dtype())) {  // update the f32 master (or a widened copy), round into p
        const Tensor w = masters_[i].defined() ? masters_[i] : p.to(DType::f32).contiguous();
        update(i, w, g.to(DType::f32));
        copy_(p, w);
      } else if (p.is_contiguous()) {
        update(i, p, g);
      } else {  // update a dense copy, then write it back through the strided view
        const Tensor dense = p.contiguous();
        update(i, dense, g);
        copy_(p, dense);
      }
    } catch (...) {  // e.g. no kernel for the dtype: the parameter did not take this step
      --param_steps_[i];
      throw;
    }
  }
}

void Optimizer::zero_grad() {
  for (Tensor& p : params_) p.zero_grad();
}

StateDict Optimizer::state_dict() const {
  StateDict out;
  out.insert("step", scalar_tensor(static_cast<double>(step_count_), DType::i64));
  out.insert("lr", scalar_tensor(lr_, DType::f64));
  for (size_t i = 0; i < params_.size(); ++i) {
    const std::string prefix = std::to_string(i) + ".";
    out.insert(prefix + "step", scalar_tensor(static_cast<double>(param_steps_[i]), DType::i64));
    for (const Buffer& b : buffers_) out.insert(prefix + b.name, b.per_param[i].clone());
    if (masters_[i].defined()) out.insert(prefix + "master", masters_[i].clone());
  }
  return out;
}

void Optimizer::load_state_dict(const StateDict& state) {
  // The entries this optimizer's state has, in state_dict() order.
  std::vector<Expected> expected;
  expected.push_back({"step", true, nullptr, 0, DType::i64});
  expected.push_back({"lr", true, nullptr, 0, DType::f64});
  for (size_t i = 0; i < params_.size(); ++i) {
    const std::string prefix = std::to_string(i) + ".";
    expected.push_back({prefix + "step", true, nullptr, i, DType::i64});
    for (const Buffer& b : buffers_)
      expected.push_back({prefix + b.name, false, &params_[i], i, state_dtype(params_[i])});
    if (masters_[i].defined())
      expected.push_back({prefix + "master", false, &params_[i], i, DType::f32});
  }
  std::unordered_map<std::string, const Expected*> by_name;
  for (const Expected& e : expected) by_name.emplace(e.name, &e);

  // Check every entry (in the state's order) before changing anything.
  for (const auto& [entry, t] : state) {
    auto it = by_name.find(entry);
    EXADNN_CHECK(it != by_name.end(), where(), "cannot load state: unexpected entry '", entry,
                 "' (the state of this ", name_, " with ", params_.size(),
                 " parameters has no such entry; was it saved by another optimizer, other "
                 "options or another model?)");
    const Expected& e = *it->second;
    EXADNN_CHECK(t.defined(), where(), "cannot load state: entry '", entry, "' is undefined");
    if (e.scalar) {
      EXADNN_CHECK(t.dim() == 0 && t.dtype() == e.dtype, where(), "cannot load state: entry '",
                   entry, "' must be a 0-d ", dtype_name(e.dtype), " tensor, got ",
                   dtype_name(t.dtype()), " of shape ", t.shape());
      const double v = t.item_double();
      if (entry == "lr") {
        EXADNN_CHECK(std::isfinite(v) && v >= 0.0, where(), "cannot load state: entry 'lr' holds ",
                     v);
      } else {
        EXADNN_CHECK(v >= 0.0 && v == std::floor(v), where(), "cannot load state: entry '", entry,
                     "' holds ", v, ", not a step count");
      }
    } else {
      EXADNN_CHECK(t.shape() == e.like->shape(), where(), "cannot load state: entry '", entry,
                   "' has shape ", t.shape(), " but parameter ", e.param, " has shape ",
                   e.like->shape());
      EXADNN_CHECK(t.dtype() == e.dtype, where(), "cannot load state: entry '", entry,
                   "' has dtype ", dtype_name(t.dtype()), " but parameter ", e.param,
                   " keeps its state in ", dtype_name(e.dtype));
    }
  }
  for (const Expected& e : expected)
    EXADNN_CHECK(state.contains(e.name), where(), "cannot load state: entry '", e.name,
                 "' is missing (the state has ", state.size(), " entries, this ", name_,
                 " expects ", expected.size(), ")");

  NoGradGuard no_grad;
  step_count_ = static_cast<int64_t>(state.at("step").item_double());
  lr_ = state.at("lr").item_double();
  for (size_t i = 0; i < params_.size(); ++i) {
    const std::string prefix = std::to_string(i) + ".";
    param_steps_[i] = static_cast<int64_t>(state.at(prefix + "step").item_double());
    // A checkpoint's tensors are read onto the host; the state lives beside its parameter.
    for (Buffer& b : buffers_)
      copy_(b.per_param[i], state.at(prefix + b.name).to(b.per_param[i].device()));
    if (masters_[i].defined()) {
      copy_(masters_[i], state.at(prefix + "master").to(masters_[i].device()));
      copy_(params_[i], masters_[i]);
    }
  }
}

}  // namespace exadnn::optim
