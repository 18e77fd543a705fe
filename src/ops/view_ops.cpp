// Differentiable views: reshape, permute, narrow, slice, squeeze, expand, ... They share storage
// with their input; each records the rule that maps the view's gradient back to the input's shape.
#include <algorithm>
#include <numeric>

#include "exadnn/ops/inplace.h"
#include "exadnn/ops/reduction.h"
#include "internal.h"

namespace exadnn {

namespace {

Tensor view_of(const Tensor& t, const Shape& shape, const Strides& strides, int64_t offset) {
  return make_view(t.storage(), shape, strides, offset, t.dtype());
}

// Replaces one -1 in `shape` by the extent that keeps numel; checks the element count.
Shape infer_shape(const Shape& requested, int64_t numel, const Shape& from, const char* op) {
  Shape shape = requested;
  int64_t infer = -1, known = 1;
  for (int64_t i = 0; i < shape.size(); ++i) {
    if (shape[i] == -1) {
      EXADNN_CHECK(infer < 0, op, "only one dimension can be -1, got ", requested);
      infer = i;
    } else {
      EXADNN_CHECK(shape[i] >= 0, op, "invalid dimension ", shape[i], " in ", requested);
      known *= shape[i];
    }
  }
  if (infer >= 0) {
    EXADNN_CHECK(known > 0 && numel % known == 0, op, "cannot reshape ", from, " (", numel,
                 " elements) into ", requested);
    shape[infer] = numel / known;
  }
  EXADNN_CHECK(shape.numel() == numel, op, "cannot reshape ", from, " (", numel, " elements) into ",
               requested, " (", shape.numel(), " elements)");
  return shape;
}

// Strides that show `t` as `shape` without copying, or false if its layout does not allow it.
// Input axes (size-1 ones dropped) and output axes are matched in groups with equal element
// counts; a group of several input axes must be one dense run, and its output axes are laid out
// densely from the run's innermost stride.
bool view_strides(const Tensor& t, const Shape& shape, Strides& out) {
  out = Dims::filled(shape.size(), 1);
  if (t.numel() == 0) {
    out = contiguous_strides(shape);
    return true;
  }
  Dims sizes, strides;
  for (int64_t i = 0; i < t.dim(); ++i) {
    if (t.shape()[i] == 1) continue;
    sizes.push_back(t.shape()[i]);
    strides.push_back(t.strides()[i]);
  }
  int64_t oi = 0, ni = 0;
  while (ni < shape.size()) {
    if (shape[ni] == 1) {  // a new unit axis: any stride will do
      ++ni;
      continue;
    }
    if (oi >= sizes.size()) return false;
    int64_t old_last = oi, new_last = ni;
    int64_t old_count = sizes[oi], new_count = shape[ni];
    while (old_count != new_count) {
      if (old_count < new_count) {
        if (++old_last >= sizes.size()) return false;
        if (strides[old_last - 1] != strides[old_last] * sizes[old_last]) return false;
        old_count *= sizes[old_last];
      } else {
        if (++new_last >= shape.size()) return false;
        new_count *= shape[new_last];
      }
    }
    int64_t stride = strides[old_last];
    for (int64_t k = new_last; k >= ni; --k) {
      out[k] = stride;
      stride *= shape[k];
    }
    oi = old_last + 1;
    ni = new_last + 1;
  }
  return oi == sizes.size();
}

// Records the gradient of a view whose backward is `g.reshape(input shape)`.
Tensor record_reshape_like(const Tensor& self, Tensor out, const char* name) {
  const Shape in_shape = self.shape();
  ops::record(name, {self}, out, [in_shape](const std::vector<Tensor>& g) {
    return std::vector<Tensor>{g[0].reshape(in_shape)};
  });
  return out;
}

// Backward of a view that picks a sub-block: scatter g into zeros through the same view.
template <class MakeView>
Tensor record_subview(const Tensor& self, Tensor out, const char* name, MakeView make) {
  const Shape in_shape = self.shape();
  const DType dtype = self.dtype();
  const Device device = self.device();
  ops::record(name, {self}, out, [in_shape, dtype, device, make](const std::vector<Tensor>& g) {
    Tensor full = zeros(in_shape, TensorOptions(dtype).device(device));
    copy_(make(full), g[0]);
    return std::vector<Tensor>{full};
  });
  return out;
}

}  // namespace

Tensor Tensor::view(const Shape& shape) const {
  const Shape target = infer_shape(shape, numel(), this->shape(), "view");
  Strides strides;
  EXADNN_CHECK(view_strides(*this, target, strides), "view", "a tensor of shape ", this->shape(),
               " and strides ", this->strides(), " cannot be viewed as ", target,
               " without a copy; use reshape()");
  return record_reshape_like(*this, view_of(*this, target, strides, offset()), "view");
}

Tensor Tensor::reshape(const Shape& shape) const {
  const Shape target = infer_shape(shape, numel(), this->shape(), "reshape");
  if (target == this->shape()) return *this;
  Strides strides;
  if (view_strides(*this, target, strides))
    return record_reshape_like(*this, view_of(*this, target, strides, offset()), "reshape");
  return contiguous().view(target);
}

Tensor Tensor::permute(const std::vector<int64_t>& order) const {
  EXADNN_CHECK(static_cast<int64_t>(order.size()) == dim(), "permute", "order has ", order.size(),
               " axes for a tensor of shape ", shape());
  Shape s = shape();
  Strides st = strides();
  std::vector<int64_t> inverse(order.size(), -1);
  for (size_t i = 0; i < order.size(); ++i) {
    const int64_t a = normalize_axis(order[i], dim(), "permute");
    EXADNN_CHECK(inverse[a] < 0, "permute", "axis ", a, " appears twice in the order");
    inverse[a] = static_cast<int64_t>(i);
    s[i] = shape()[a];
    st[i] = strides()[a];
  }
  Tensor out = view_of(*this, s, st, offset());
  ops::record("permute", {*this}, out, [inverse](const std::vector<Tensor>& g) {
    return std::vector<Tensor>{g[0].permute(inverse)};
  });
  return out;
}

Tensor Tensor::transpose(int64_t d0, int64_t d1) const {
  if (dim() == 0) {
    check_scalar_axis(d0, "transpose");
    check_scalar_axis(d1, "transpose");
    return *this;
  }
  d0 = normalize_axis(d0, dim(), "transpose");
  d1 = normalize_axis(d1, dim(), "transpose");
  std::vector<int64_t> order(static_cast<size_t>(dim()));
  std::iota(order.begin(), order.end(), 0);
  std::swap(order[d0], order[d1]);
  return permute(order);
}

Tensor Tensor::t() const {
  EXADNN_CHECK(dim() <= 2, "t", "expects a tensor with at most 2 dimensions, got shape ", shape());
  return dim() < 2 ? *this : transpose(0, 1);
}

Tensor Tensor::slice(int64_t d, int64_t start, int64_t end, int64_t step) const {
  d = normalize_axis(d, dim(), "slice");
  EXADNN_CHECK(step > 0, "slice", "step must be positive, got ", step);
  const int64_t n = shape()[d];
  if (start < 0) start += n;
  if (end < 0) end += n;
  start = std::clamp<int64_t>(start, 0, n);
  end = std::clamp<int64_t>(end, start, n);
  Shape s = shape();
  Strides st = strides();
  s[d] = (end - start + step - 1) / step;
  st[d] = strides()[d] * step;
  Tensor out = view_of(*this, s, st, offset() + start * strides()[d]);
  return record_subview(*this, out, "slice",
                        [=](const Tensor& full) { return full.slice(d, start, end, step); });
}

Tensor Tensor::narrow(int64_t d, int64_t start, int64_t length) const {
  d = normalize_axis(d, dim(), "narrow");
  const int64_t n = shape()[d];
  EXADNN_CHECK(start >= 0 && length >= 0 && start + length <= n, "narrow", "range [", start, ", ",
               start + length, ") is out of bounds for dim ", d, " of size ", n, " in shape ",
               shape());
  return slice(d, start, start + length, 1);
}

Tensor Tensor::select(int64_t d, int64_t index) const {
  d = normalize_axis(d, dim(), "select");
  const int64_t n = shape()[d];
  EXADNN_CHECK(index >= -n && index < n, "select", "index ", index, " is out of range for dim ", d,
               " of size ", n, " in shape ", shape());
  if (index < 0) index += n;
  return narrow(d, index, 1).squeeze(d);
}

Tensor Tensor::squeeze() const {
  Shape s;
  Strides st;
  for (int64_t i = 0; i < dim(); ++i) {
    if (shape()[i] == 1) continue;
    s.push_back(shape()[i]);
    st.push_back(strides()[i]);
  }
  if (s.size() == dim()) return *this;
  return record_reshape_like(*this, view_of(*this, s, st, offset()), "squeeze");
}

Tensor Tensor::squeeze(int64_t d) const {
  if (dim() == 0) {
    check_scalar_axis(d, "squeeze");
    return *this;
  }
  d = normalize_axis(d, dim(), "squeeze");
  if (shape()[d] != 1) return *this;
  Shape s = shape();
  Strides st = strides();
  s.erase(d);
  st.erase(d);
  return record_reshape_like(*this, view_of(*this, s, st, offset()), "squeeze");
}

Tensor Tensor::unsqueeze(int64_t d) const {
  d = normalize_axis(d, dim() + 1, "unsqueeze");
  Shape s = shape();
  Strides st = strides();
  const int64_t stride = d < dim() ? strides()[d] * shape()[d] : 1;
  s.insert(d, 1);
  st.insert(d, stride);
  return record_reshape_like(*this, view_of(*this, s, st, offset()), "unsqueeze");
}

Tensor Tensor::expand(const Shape& shape) const {
  EXADNN_CHECK(shape.size() >= dim(), "expand", "cannot expand shape ", this->shape(), " to ",
               shape, " (fewer dimensions)");
  Shape target = shape;
  const int64_t lead = shape.size() - dim();
  for (int64_t i = 0; i < shape.size(); ++i) {
    const int64_t own = i >= lead ? this->shape()[i - lead] : 1;
    if (target[i] == -1) {
      EXADNN_CHECK(i >= lead, "expand", "-1 is not allowed for new leading dimension ", i);
      target[i] = own;
    }
    EXADNN_CHECK(own == target[i] || own == 1, "expand", "cannot expand shape ", this->shape(),
                 " to ", shape, " (dim ", i, ": ", own, " vs ", target[i], ")");
  }
  if (target == this->shape()) return *this;
  Tensor out = ops::broadcast_view(*this, target);
  const Shape in_shape = this->shape();
  ops::record("expand", {*this}, out, [in_shape](const std::vector<Tensor>& g) {
    return std::vector<Tensor>{ops::sum_to(g[0], in_shape)};
  });
  return out;
}

Tensor Tensor::flatten(int64_t start_dim, int64_t end_dim) const {
  if (dim() == 0) return reshape({1});
  start_dim = normalize_axis(start_dim, dim(), "flatten");
  end_dim = normalize_axis(end_dim, dim(), "flatten");
  EXADNN_CHECK(start_dim <= end_dim, "flatten", "start_dim ", start_dim, " is after end_dim ",
               end_dim);
  Shape s;
  for (int64_t i = 0; i < start_dim; ++i) s.push_back(shape()[i]);
  int64_t merged = 1;
  for (int64_t i = start_dim; i <= end_dim; ++i) merged *= shape()[i];
  s.push_back(merged);
  for (int64_t i = end_dim + 1; i < dim(); ++i) s.push_back(shape()[i]);
  return reshape(s);
}

}  // namespace exadnn
