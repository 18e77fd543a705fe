#include "exadnn/core/dims.h"

#include <algorithm>
#include <ostream>
#include <sstream>

#include "exadnn/core/error.h"

namespace exadnn {

namespace {
void check_rank(int64_t n) {
  EXADNN_CHECK(n <= kMaxDims, "Shape", "a tensor may have at most ", kMaxDims, " dimensions, got ",
               n);
}
}  // namespace

Dims::Dims(std::initializer_list<int64_t> values) {
  check_rank(static_cast<int64_t>(values.size()));
  for (int64_t v : values) v_[n_++] = v;
}

Dims::Dims(const std::vector<int64_t>& values) {
  check_rank(static_cast<int64_t>(values.size()));
  for (int64_t v : values) v_[n_++] = v;
}

Dims Dims::filled(int64_t n, int64_t value) {
  Dims d;
  d.resize(n, value);
  return d;
}

void Dims::push_back(int64_t value) {
  check_rank(n_ + 1);
  v_[n_++] = value;
}

void Dims::insert(int64_t pos, int64_t value) {
  check_rank(n_ + 1);
  for (int64_t i = n_; i > pos; --i) v_[i] = v_[i - 1];
  v_[pos] = value;
  ++n_;
}

void Dims::erase(int64_t pos) {
  for (int64_t i = pos; i + 1 < n_; ++i) v_[i] = v_[i + 1];
  --n_;
}

void Dims::resize(int64_t n, int64_t value) {
  check_rank(n);
  for (int64_t i = n_; i < n; ++i) v_[i] = value;
  n_ = n;
}

int64_t Dims::numel() const noexcept {
  int64_t p = 1;
  for (int64_t i = 0; i < n_; ++i) p *= v_[i];
  return p;
}

std::string Dims::str() const {
  std::ostringstream os;
  os << *this;
  return os.str();
}

bool operator==(const Dims& a, const Dims& b) noexcept {
  if (a.n_ != b.n_) return false;
  for (int64_t i = 0; i < a.n_; ++i)
    if (a.v_[i] != b.v_[i]) return false;
  return true;
}

std::ostream& operator<<(std::ostream& os, const Dims& d) {
  os << '[';
  for (int64_t i = 0; i < d.size(); ++i) os << (i ? ", " : "") << d[i];
  return os << ']';
}

Strides contiguous_strides(const Shape& shape) {
  Strides s = Dims::filled(shape.size(), 1);
  for (int64_t i = shape.size() - 2; i >= 0; --i)
    s[i] = s[i + 1] * std::max<int64_t>(shape[i + 1], 1);
  return s;
}

int64_t normalize_axis(int64_t axis, int64_t ndim, const char* op) {
  EXADNN_CHECK(axis >= -ndim && axis < ndim, op, "axis ", axis,
               " is out of range for a tensor with ", ndim, " dimensions");
  return axis < 0 ? axis + ndim : axis;
}

void check_scalar_axis(int64_t axis, const char* op) {
  EXADNN_CHECK(axis == 0 || axis == -1, op, "axis ", axis,
               " is out of range for a tensor with 0 dimensions");
}

}  // namespace exadnn
