// LRScheduler base: epoch bookkeeping, applying rates, and the checkpoint form.
#include "exadnn/optim/lr_scheduler.h"

#include <cmath>

#include "exadnn/ops/factories.h"

namespace exadnn::optim {

namespace {

constexpr const char* kEntries[] = {"last_epoch", "base_lr", "last_lr"};

}  // namespace

LRScheduler::LRScheduler(Optimizer& optimizer, const char* name)
    : optimizer_(optimizer),
      name_(name),
      base_lr_(optimizer.initial_lr()),
      last_lr_(optimizer.lr()) {}

void LRScheduler::initial_step() {
  last_epoch_ = -1;
  LRScheduler::step();
}

void LRScheduler::step() {
  ++last_epoch_;
  apply(chained_lr());
}

void LRScheduler::jump_to(int64_t epoch) {
  last_epoch_ = epoch;
  apply(closed_form_lr(epoch));
}

void LRScheduler::apply(double lr) {
  optimizer_.set_lr(lr);
  last_lr_ = lr;
}

StateDict LRScheduler::state_dict() const {
  StateDict out;
  out.insert("last_epoch", scalar_tensor(static_cast<double>(last_epoch_), DType::i64));
  out.insert("base_lr", scalar_tensor(base_lr_, DType::f64));
  out.insert("last_lr", scalar_tensor(last_lr_, DType::f64));
  return out;
}

void LRScheduler::load_state_dict(const StateDict& state) {
  check_state(state, "");
  restore_state(state);
}

void LRScheduler::check_state(const StateDict& state, const std::string& prefix) const {
  for (const auto& [entry, t] : state) {
    bool known = false;
    for (const char* name : kEntries) known = known || entry == name;
    EXADNN_CHECK(known, where(), "cannot load state: unexpected entry '", prefix, entry, "'");
    EXADNN_CHECK(t.defined() && t.dim() == 0, where(), "cannot load state: entry '", prefix, entry,
                 "' must be a 0-d tensor");
    EXADNN_CHECK(std::isfinite(t.item_double()), where(), "cannot load state: entry '", prefix,
                 entry, "' holds ", t.item_double());
  }
  for (const char* name : kEntries)
    EXADNN_CHECK(state.contains(name), where(), "cannot load state: entry '", prefix, name,
                 "' is missing");
}

void LRScheduler::restore_state(const StateDict& state) {
  last_epoch_ = static_cast<int64_t>(state.at("last_epoch").item_double());
  base_lr_ = state.at("base_lr").item_double();
  last_lr_ = state.at("last_lr").item_double();
}

}  // namespace exadnn::optim
