// Tensor: refcounted storage plus a view (shape, strides, offset, dtype, device), and the autograd
// metadata that makes it a node of the compute graph.
//
// Copying a Tensor is cheap and aliases: both copies name the same view of the same storage.
//
// Where the member functions are defined. Users expect all of them on the tensor, so they are
// all declared here, but each group is defined by the lowest layer that can implement it; core
// itself never calls a function defined above it:
//   - layout, data access, autograd metadata (requires_grad_, grad, hooks, detach):
//     src/core/tensor.cpp (core);
//   - backward(): src/autograd/engine.cpp (autograd, it runs the engine);
//   - views, conversions, item(), clone(): src/ops/view_ops.cpp and src/ops/conversion.cpp
//     (ops, which own the gradient rules and the copy kernels);
//   - printing, str() and operator<<: src/ops/print.cpp (ops: it converts through the
//     dispatch table and names the autograd node).
#pragma once

#include <cstdint>
#include <functional>
#include <iosfwd>
#include <memory>
#include <string>
#include <vector>

#include "exadnn/core/device.h"
#include "exadnn/core/dims.h"
#include "exadnn/core/dtype.h"
#include "exadnn/core/error.h"
#include "exadnn/core/storage.h"

namespace exadnn {

namespace autograd {
class Node;
}  // namespace autograd

class Tensor;

/// What a factory makes: dtype, device, memory kind, and whether the result requires grad.
class TensorOptions {
 public:
  TensorOptions() = default;
  TensorOptions(DType t) : dtype_(t), has_dtype_(true) {}  // NOLINT: `zeros({2}, DType::f64)`
  TensorOptions(Device d) : device_(d) {}                  // NOLINT
  TensorOptions& dtype(DType t) {
    dtype_ = t;
    has_dtype_ = true;
    return *this;
  }
  TensorOptions& device(Device d) {
    device_ = d;
    return *this;
  }
  /// Memory kind; default host for cpu and device for cuda.
  TensorOptions& memory(MemoryKind k) {
    memory_ = k;
    has_memory_ = true;
    return *this;
  }
  TensorOptions& requires_grad(bool r = true) {
    requires_grad_ = r;
    return *this;
  }
  DType dtype() const { return dtype_; }
  /// The dtype if one was set, else `fallback` (from_vector<double> defaults to f64).
  DType dtype_or(DType fallback) const { return has_dtype_ ? dtype_ : fallback; }
  Device device() const { return device_; }
  MemoryKind memory() const;
  bool requires_grad() const { return requires_grad_; }

 private:
  DType dtype_ = DType::f32;
  bool has_dtype_ = false;
  Device device_ = Device::cpu();
  MemoryKind memory_ = MemoryKind::host;
  bool has_memory_ = false;
  bool requires_grad_ = false;
};

/// Called with the accumulated gradient of a leaf tensor after each backward contribution.
using GradHook = std::function<void(const Tensor& grad)>;

/// Autograd state of one tensor.
struct AutogradMeta;

/// The view a Tensor is: storage plus layout. Shared by Tensor copies.
struct TensorImpl {
  std::shared_ptr<Storage> storage;
  Shape shape;
  Strides strides;
  int64_t offset = 0;  ///< in elements
  DType dtype = DType::f32;
  std::shared_ptr<AutogradMeta> autograd;
};

/// An n-dimensional array on some device, possibly part of the autograd graph.
class Tensor {
 public:
  /// An undefined tensor (no storage); `defined()` is false.
  Tensor() = default;
  explicit Tensor(std::shared_ptr<TensorImpl> impl) : impl_(std::move(impl)) {}

  // --- layout and data access (defined in src/core/tensor.cpp) -----------------------------
  bool defined() const noexcept { return impl_ != nullptr; }
  const Shape& shape() const { return impl().shape; }
  const Strides& strides() const { return impl().strides; }
  int64_t dim() const { return impl().shape.size(); }
  /// Extent of axis `d` (negative counts from the end).
  int64_t size(int64_t d) const;
  int64_t numel() const { return impl().shape.numel(); }
  int64_t offset() const { return impl().offset; }
  DType dtype() const { return impl().dtype; }
  Device device() const { return impl().storage->device(); }
  MemoryKind memory_kind() const { return impl().storage->kind(); }
  size_t element_size() const { return dtype_size(dtype()); }
  size_t nbytes() const { return static_cast<size_t>(numel()) * element_size(); }
  bool is_contiguous() const;
  const std::shared_ptr<Storage>& storage() const { return impl().storage; }
  /// True when both tensors view the same storage.
  bool shares_storage_with(const Tensor& other) const;

  /// Address of the first element of this view.
  void* data_ptr() const;
  /// Typed address of the first element; throws if T does not match dtype().
  template <class T>
  T* data() const {
    EXADNN_CHECK(dtype_v<T> == dtype(), "Tensor::data", "requested ", dtype_name(dtype_v<T>),
                 " pointer of a ", dtype_name(dtype()), " tensor");
    return static_cast<T*>(data_ptr());
  }
  /// The single value of a one-element tensor, converted to T (item_double() is defined in
  /// src/ops/conversion.cpp: it copies through the dispatch table).
  template <class T>
  T item() const {
    return static_cast<T>(item_double());
  }
  double item_double() const;

  // --- autograd metadata (defined in src/core/tensor.cpp; backward() in src/autograd) ------
  bool requires_grad() const;
  /// Marks a leaf as requiring grad (returns *this).
  Tensor& requires_grad_(bool value = true);
  /// Accumulated gradient of a leaf (undefined until a backward reaches it).
  Tensor grad() const;
  void set_grad(const Tensor& g);
  /// Drops the accumulated gradient.
  void zero_grad();
  /// True for tensors created by the user (not by a recorded op).
  bool is_leaf() const;
  /// The node that produced this tensor, or null for leaves.
  std::shared_ptr<autograd::Node> grad_fn() const;
  /// Which output of grad_fn() this tensor is.
  uint32_t output_nr() const;
  /// Runs reverse-mode autodiff from this tensor. `grad` defaults to 1 for a one-element tensor.
  /// Defined in src/autograd/engine.cpp.
  void backward(const Tensor& grad = Tensor(), bool retain_graph = false) const;
  /// Same storage, cut from the graph.
  Tensor detach() const;
  /// Adds a hook called with this leaf's gradient each time backward accumulates into it;
  /// returns an id for remove_grad_hook.
  uint64_t register_grad_hook(GradHook hook);
  /// Removes the hook registered under `id` (no-op if it is gone already).
  void remove_grad_hook(uint64_t id);
  /// The autograd metadata, created on first use.
  AutogradMeta& autograd_meta() const;
  bool has_autograd_meta() const noexcept { return impl_ && impl_->autograd != nullptr; }

  // --- views and conversions (differentiable; defined in src/ops/view_ops.cpp and
  // --- src/ops/conversion.cpp, next to their gradient rules) ------------------------------
  Tensor reshape(const Shape& shape) const;
  /// Like reshape, but the tensor must be viewable without a copy.
  Tensor view(const Shape& shape) const;
  Tensor permute(const std::vector<int64_t>& order) const;
  Tensor transpose(int64_t d0, int64_t d1) const;
  /// Transpose of a 2-D tensor.
  Tensor t() const;
  /// Elements [start, start + length) along `dim`.
  Tensor narrow(int64_t dim, int64_t start, int64_t length) const;
  /// Element `index` along `dim`, removing that dim.
  Tensor select(int64_t dim, int64_t index) const;
  /// Python-style slice along dim: start..end (exclusive) with step; negative start/end count back.
  Tensor slice(int64_t dim, int64_t start, int64_t end, int64_t step = 1) const;
  Tensor squeeze() const;
  Tensor squeeze(int64_t dim) const;
  Tensor unsqueeze(int64_t dim) const;
  /// Broadcasts size-1 dims (and new leading dims) to `shape` without copying.
  Tensor expand(const Shape& shape) const;
  Tensor flatten(int64_t start_dim = 0, int64_t end_dim = -1) const;
  /// This tensor if already contiguous, else a packed copy.
  Tensor contiguous() const;
  Tensor to(DType dtype) const;
  Tensor to(Device device) const;
  /// A packed copy with its own storage.
  Tensor clone() const;
  Tensor operator[](int64_t index) const { return select(0, index); }

  // --- printing (defined in src/ops/print.cpp) ---------------------------------------------
  /// Readable multi-line rendering (summarised past 1000 elements), e.g.
  /// "tensor([1.0000, 2.5000], shape=[2], dtype=f32)".
  std::string str() const;

  // --- the underlying view (src/core/tensor.cpp) ------------------------------------------
  const std::shared_ptr<TensorImpl>& impl_ptr() const noexcept { return impl_; }
  TensorImpl& impl() const;

 private:
  std::shared_ptr<TensorImpl> impl_;
};

struct AutogradMeta {
  bool requires_grad = false;
  Tensor grad;
  std::shared_ptr<autograd::Node> grad_fn;
  uint32_t output_nr = 0;
  /// The accumulate-into-.grad node of a leaf, shared by every op that consumes it.
  std::weak_ptr<autograd::Node> grad_accumulator;
  /// Gradient hooks of a leaf with their ids, in registration order.
  std::vector<std::pair<uint64_t, GradHook>> hooks;
};

/// Writes t.str(); defined in src/ops/print.cpp with str().
std::ostream& operator<<(std::ostream& os, const Tensor& t);

/// Makes a tensor header over existing storage (no copy, no autograd).
Tensor make_view(const std::shared_ptr<Storage>& storage, const Shape& shape,
                 const Strides& strides, int64_t offset, DType dtype);

}  // namespace exadnn
