// Shape and Strides: a short list of extents (or element strides) stored inline, no heap.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <iosfwd>
#include <string>
#include <vector>

namespace exadnn {

/// Largest number of dimensions a tensor may have.
inline constexpr int kMaxDims = 12;

/// Inline list of up to kMaxDims int64 values; used for shapes and strides.
class Dims {
 public:
  Dims() = default;
  Dims(std::initializer_list<int64_t> values);
  explicit Dims(const std::vector<int64_t>& values);
  // Copies move only the used entries: shapes are copied on every op.
  Dims(const Dims& other) noexcept : n_(other.n_) {
    for (int64_t i = 0; i < n_; ++i) v_[i] = other.v_[i];
  }
  Dims& operator=(const Dims& other) noexcept {
    n_ = other.n_;
    for (int64_t i = 0; i < n_; ++i) v_[i] = other.v_[i];
    return *this;
  }
  /// `n` copies of `value`.
  static Dims filled(int64_t n, int64_t value);

  int64_t size() const noexcept { return n_; }
  bool empty() const noexcept { return n_ == 0; }
  int64_t& operator[](int64_t i) noexcept { return v_[i]; }
  int64_t operator[](int64_t i) const noexcept { return v_[i]; }
  int64_t* begin() noexcept { return v_; }
  int64_t* end() noexcept { return v_ + n_; }
  const int64_t* begin() const noexcept { return v_; }
  const int64_t* end() const noexcept { return v_ + n_; }
  const int64_t* data() const noexcept { return v_; }
  int64_t back() const noexcept { return v_[n_ - 1]; }

  void push_back(int64_t value);
  void insert(int64_t pos, int64_t value);
  void erase(int64_t pos);
  void resize(int64_t n, int64_t value = 0);

  /// Product of all values (1 for an empty list): the element count of a shape.
  int64_t numel() const noexcept;
  std::vector<int64_t> vec() const { return {begin(), end()}; }
  /// "[2, 3, 4]"
  std::string str() const;

  friend bool operator==(const Dims& a, const Dims& b) noexcept;
  friend bool operator!=(const Dims& a, const Dims& b) noexcept { return !(a == b); }

 private:
  int64_t v_[kMaxDims];  // entries past n_ are unspecified
  int64_t n_ = 0;
};

/// Extents of a tensor, outermost first.
using Shape = Dims;
/// Element (not byte) strides of a tensor, matching a Shape.
using Strides = Dims;

std::ostream& operator<<(std::ostream& os, const Dims& d);

/// Row-major strides of a densely packed tensor of this shape.
Strides contiguous_strides(const Shape& shape);
/// Maps a possibly negative axis into [0, ndim); throws naming `op` if out of range (a 0-d
/// tensor has no axes: ops that accept axis 0 of a scalar, like sum or squeeze, check for it).
int64_t normalize_axis(int64_t axis, int64_t ndim, const char* op);
/// For a 0-d tensor: checks `axis` is 0 or -1, the only axes NumPy-style ops accept for scalars.
void check_scalar_axis(int64_t axis, const char* op);

}  // namespace exadnn
