// Copies and conversions: contiguous, clone, to(dtype), to(device), item.
#include "internal.h"

namespace exadnn {

namespace {

// A dense copy of t on its own device (no autograd).
Tensor dense_copy(const Tensor& t) {
  Tensor out = ops::empty_on(t.shape(), t.dtype(), t.device());
  lookup<CopyKernel>(OpId::copy, t.device().kind, t.dtype())(out, t);
  return out;
}

}  // namespace

Tensor Tensor::clone() const {
  Tensor out = dense_copy(*this);
  ops::record("clone", {*this}, out, [](const std::vector<Tensor>& g) { return g; });
  return out;
}

Tensor Tensor::contiguous() const {
  if (is_contiguous()) return *this;
  Tensor out = dense_copy(*this);
  ops::record("contiguous", {*this}, out, [](const std::vector<Tensor>& g) { return g; });
  return out;
}

Tensor Tensor::to(DType target) const {
  if (target == dtype()) return *this;
  Tensor out = ops::cast_raw(*this, target);
  const DType source = dtype();
  if (is_floating(source) && is_floating(target)) {
    ops::record("to(dtype)", {*this}, out, [source](const std::vector<Tensor>& g) {
      return std::vector<Tensor>{g[0].to(source)};
    });
  }
  return out;
}

Tensor Tensor::to(Device target) const {
  if (target == device()) return *this;
  const Tensor src = is_contiguous() ? *this : dense_copy(*this);
  Tensor out = ops::empty_on(shape(), dtype(), target);
  MemoryManager::instance().copy(out.data_ptr(), out.memory_kind(), src.data_ptr(),
                                 src.memory_kind(), nbytes());
  const Device source = device();
  ops::record("to(device)", {*this}, out, [source](const std::vector<Tensor>& g) {
    return std::vector<Tensor>{g[0].to(source)};
  });
  return out;
}

double Tensor::item_double() const {
  EXADNN_CHECK(numel() == 1, "item", "a tensor of shape ", shape(), " has ", numel(),
               " elements, not one");
  const Tensor host = detach().to(Device::cpu()).to(DType::f64).contiguous();
  return *static_cast<const double*>(host.data_ptr());
}

}  // namespace exadnn
