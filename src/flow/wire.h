// Byte encoding of COMMLIB messages (channel headers, tuple-space requests and replies); internal.
//
// Little helpers that append fixed-width integers, strings and raw bytes to a buffer and read them
// back with bounds checks; all ranks of one job share a byte order, so integers travel as is.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

#include "exadnn/core/tensor.h"

namespace exadnn::flow::detail {

/// Appends values to a byte buffer.
class ByteWriter {
 public:
  /// Appends the bytes of a trivially copyable value.
  template <class T>
  void put(T value) {
    append(&value, sizeof(T));
  }
  /// Appends a length (u64) and the characters.
  void put_string(std::string_view s) {
    put<uint64_t>(s.size());
    append(s.data(), s.size());
  }
  /// Appends `n` raw bytes.
  void append(const void* data, size_t n) {
    const size_t at = buffer_.size();
    buffer_.resize(at + n);
    if (n) std::memcpy(buffer_.data() + at, data, n);
  }
  /// Reserves room for `n` bytes in all.
  void reserve(size_t n) { buffer_.reserve(n); }
  /// Overwrites a value written earlier at byte `offset`.
  template <class T>
  void patch(size_t offset, T value) {
    std::memcpy(buffer_.data() + offset, &value, sizeof(T));
  }
  size_t size() const { return buffer_.size(); }
  std::vector<std::byte>& buffer() { return buffer_; }

 private:
  std::vector<std::byte> buffer_;
};

/// Reads values back from a byte buffer; a short or malformed buffer throws exadnn::Error.
class ByteReader {
 public:
  /// Reads `size` bytes at `data`; `where` (which must outlive the reader) names the component
  /// in errors.
  ByteReader(const std::byte* data, size_t size, std::string_view where)
      : data_(data), size_(size), where_(where) {}
  template <class T>
  T get() {
    T value;
    std::memcpy(&value, take(sizeof(T)), sizeof(T));
    return value;
  }
  std::string get_string() {
    const auto n = get<uint64_t>();
    const std::byte* p = take(n);
    return std::string(reinterpret_cast<const char*>(p), n);
  }
  /// The next `n` bytes (a pointer into the buffer).
  const std::byte* take(size_t n);
  size_t position() const { return at_; }
  size_t remaining() const { return size_ - at_; }

 private:
  const std::byte* data_;
  size_t size_;
  size_t at_ = 0;
  std::string_view where_;
};

/// Dtype and shape of a tensor on the wire.
struct TensorMeta {
  DType dtype = DType::u8;
  Shape shape;
};

/// Appends dtype and shape of `t`.
void write_meta(ByteWriter& w, DType dtype, const Shape& shape);
/// Reads what write_meta wrote.
TensorMeta read_meta(ByteReader& r);

}  // namespace exadnn::flow::detail
