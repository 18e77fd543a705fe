// Little-endian byte and bit packing for the compressors' payloads and the stream files, with
// reads that never run past the end (they throw an exadnn::Error naming what was being read),
// and the CRC-32 checksum the stream files carry.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace climate {

/// Appends little-endian values to a byte vector.
class ByteWriter {
 public:
  explicit ByteWriter(std::vector<std::uint8_t>& out) : out_(out) {}
  void u8(std::uint8_t v) { out_.push_back(v); }
  void u16(std::uint16_t v) { put(v, 2); }
  void u32(std::uint32_t v) { put(v, 4); }
  void u64(std::uint64_t v) { put(v, 8); }
  void f32(float v);
  void f64(double v);
  void bytes(const void* data, std::size_t size);

 private:
  void put(std::uint64_t v, int size);
  std::vector<std::uint8_t>& out_;
};

/// Reads little-endian values from [data, data + size); reading past the end is an
/// exadnn::Error "<context>: truncated: <what> needs N bytes at offset O, M left".
class ByteReader {
 public:
  ByteReader(const std::uint8_t* data, std::size_t size, std::string context)
      : data_(data), size_(size), context_(std::move(context)) {}
  std::uint8_t u8(const char* what) { return static_cast<std::uint8_t>(get(1, what)); }
  std::uint16_t u16(const char* what) { return static_cast<std::uint16_t>(get(2, what)); }
  std::uint32_t u32(const char* what) { return static_cast<std::uint32_t>(get(4, what)); }
  std::uint64_t u64(const char* what) { return get(8, what); }
  float f32(const char* what);
  double f64(const char* what);
  /// A pointer to the next `size` bytes (checked), and moves past them.
  const std::uint8_t* bytes(std::size_t size, const char* what);

  std::size_t offset() const { return pos_; }
  std::size_t left() const { return size_ - pos_; }
  const std::string& context() const { return context_; }

 private:
  std::uint64_t get(int size, const char* what);
  void need(std::size_t size, const char* what) const;
  const std::uint8_t* data_;
  std::size_t size_;
  std::size_t pos_ = 0;
  std::string context_;
};

/// Packs values of 1–64 bits LSB-first into bytes.
class BitWriter {
 public:
  explicit BitWriter(std::vector<std::uint8_t>& out) : out_(out) {}
  void put(std::uint64_t value, int bits);
  /// Writes the last partial byte (zero-padded).
  void flush();

 private:
  std::vector<std::uint8_t>& out_;
  std::uint64_t acc_ = 0;  // pending bits, LSB first
  int nacc_ = 0;           // how many
};

/// Reads what BitWriter packed, from [data, data + size); past the end is an exadnn::Error.
class BitReader {
 public:
  BitReader(const std::uint8_t* data, std::size_t size, std::string context)
      : data_(data), size_(size), context_(std::move(context)) {}
  std::uint64_t get(int bits);
  /// The bytes loaded so far (those the values read so far reach into).
  std::size_t bytes_read() const { return pos_; }

 private:
  const std::uint8_t* data_;
  std::size_t size_;
  std::size_t pos_ = 0;  // next byte to load
  std::uint64_t acc_ = 0;
  int nacc_ = 0;
  std::string context_;
};

/// The CRC-32 (IEEE 802.3, as zlib's crc32) of [data, data + size), continuing from `crc`.
std::uint32_t crc32(const void* data, std::size_t size, std::uint32_t crc = 0);

}  // namespace climate
