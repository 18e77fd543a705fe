// Tensor: layout queries and autograd accessors. Views, conversions and printing are defined in
// src/ops, backward() in src/autograd; nothing here calls them.
#include "exadnn/core/tensor.h"

#include <atomic>

namespace exadnn {

MemoryKind TensorOptions::memory() const {
  if (has_memory_) return memory_;
  return device_.is_cpu() ? MemoryKind::host : MemoryKind::device;
}

TensorImpl& Tensor::impl() const {
  EXADNN_CHECK(impl_ != nullptr, "Tensor", "use of an undefined tensor");
  return *impl_;
}

int64_t Tensor::size(int64_t d) const {
  return shape()[normalize_axis(d, dim(), "Tensor::size")];
}

bool Tensor::is_contiguous() const {
  const TensorImpl& t = impl();
  int64_t expected = 1;
  for (int64_t i = t.shape.size() - 1; i >= 0; --i) {
    if (t.shape[i] == 1) continue;
    if (t.strides[i] != expected) return false;
    expected *= t.shape[i];
  }
  return true;
}

bool Tensor::shares_storage_with(const Tensor& other) const {
  return defined() && other.defined() && impl_->storage == other.impl_->storage;
}

void* Tensor::data_ptr() const {
  const TensorImpl& t = impl();
  return static_cast<char*>(t.storage->data()) +
         t.offset * static_cast<int64_t>(dtype_size(t.dtype));
}

// --- autograd accessors ------------------------------------------------------------------

AutogradMeta& Tensor::autograd_meta() const {
  TensorImpl& t = impl();
  if (!t.autograd) t.autograd = std::make_shared<AutogradMeta>();
  return *t.autograd;
}

bool Tensor::requires_grad() const {
  return has_autograd_meta() && (impl_->autograd->requires_grad || impl_->autograd->grad_fn);
}

Tensor& Tensor::requires_grad_(bool value) {
  EXADNN_CHECK(is_leaf(), "requires_grad_",
               "only leaf tensors can change requires_grad (this one was produced by an op); "
               "use detach() first");
  EXADNN_CHECK(!value || is_floating(dtype()), "requires_grad_",
               "only floating-point tensors can require gradients, got ", dtype_name(dtype()));
  autograd_meta().requires_grad = value;
  return *this;
}

Tensor Tensor::grad() const {
  return has_autograd_meta() ? impl_->autograd->grad : Tensor();
}

void Tensor::set_grad(const Tensor& g) {
  if (g.defined()) {
    EXADNN_CHECK(g.shape() == shape(), "set_grad", "gradient of shape ", g.shape(),
                 " does not match tensor of shape ", shape());
  }
  autograd_meta().grad = g;
}

void Tensor::zero_grad() {
  if (has_autograd_meta()) impl_->autograd->grad = Tensor();
}

bool Tensor::is_leaf() const {
  return !has_autograd_meta() || impl_->autograd->grad_fn == nullptr;
}

std::shared_ptr<autograd::Node> Tensor::grad_fn() const {
  return has_autograd_meta() ? impl_->autograd->grad_fn : nullptr;
}

uint32_t Tensor::output_nr() const {
  return has_autograd_meta() ? impl_->autograd->output_nr : 0;
}

Tensor Tensor::detach() const {
  const TensorImpl& t = impl();
  return make_view(t.storage, t.shape, t.strides, t.offset, t.dtype);
}

uint64_t Tensor::register_grad_hook(GradHook hook) {
  EXADNN_CHECK(is_leaf() && requires_grad(), "register_grad_hook",
               "hooks can only be registered on leaf tensors that require grad");
  static std::atomic<uint64_t> next_id{1};
  const uint64_t id = next_id.fetch_add(1, std::memory_order_relaxed);
  autograd_meta().hooks.emplace_back(id, std::move(hook));
  return id;
}

void Tensor::remove_grad_hook(uint64_t id) {
  if (!has_autograd_meta()) return;
  std::erase_if(autograd_meta().hooks, [id](const auto& entry) { return entry.first == id; });
}

Tensor make_view(const std::shared_ptr<Storage>& storage, const Shape& shape,
                 const Strides& strides, int64_t offset, DType dtype) {
  auto impl = std::make_shared<TensorImpl>();
  impl->storage = storage;
  impl->shape = shape;
  impl->strides = strides;
  impl->offset = offset;
  impl->dtype = dtype;
  return Tensor(std::move(impl));
}

}  // namespace exadnn
