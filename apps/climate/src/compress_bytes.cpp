#include "climate/compress_bytes.h"

#include <array>
#include <cstring>

#include "exadnn/core/error.h"

namespace climate {

using exadnn::Error;
using exadnn::detail::cat;

void ByteWriter::put(std::uint64_t v, int size) {
  for (int i = 0; i < size; ++i) out_.push_back(static_cast<std::uint8_t>(v >> (8 * i)));
}

void ByteWriter::f32(float v) {
  std::uint32_t bits;
  std::memcpy(&bits, &v, sizeof bits);
  u32(bits);
}

void ByteWriter::f64(double v) {
  std::uint64_t bits;
  std::memcpy(&bits, &v, sizeof bits);
  u64(bits);
}

void ByteWriter::bytes(const void* data, std::size_t size) {
  const auto* p = static_cast<const std::uint8_t*>(data);
  out_.insert(out_.end(), p, p + size);
}

void ByteReader::need(std::size_t size, const char* what) const {
  if (size > size_ - pos_)
    throw Error(context_, cat("truncated: ", what, " needs ", size, " bytes at offset ", pos_, ", ",
                              size_ - pos_, " left"));
}

std::uint64_t ByteReader::get(int size, const char* what) {
  need(static_cast<std::size_t>(size), what);
  std::uint64_t v = 0;
  for (int i = 0; i < size; ++i) v |= static_cast<std::uint64_t>(data_[pos_ + i]) << (8 * i);
  pos_ += static_cast<std::size_t>(size);
  return v;
}

float ByteReader::f32(const char* what) {
  const std::uint32_t bits = u32(what);
  float v;
  std::memcpy(&v, &bits, sizeof v);
  return v;
}

double ByteReader::f64(const char* what) {
  const std::uint64_t bits = u64(what);
  double v;
  std::memcpy(&v, &bits, sizeof v);
  return v;
}

const std::uint8_t* ByteReader::bytes(std::size_t size, const char* what) {
  need(size, what);
  const std::uint8_t* p = data_ + pos_;
  pos_ += size;
  return p;
}

void BitWriter::put(std::uint64_t value, int bits) {
  if (bits < 64) value &= (std::uint64_t{1} << bits) - 1;
  // Split so the accumulator (64 bits) never overflows: at most 32 bits go in at a time.
  if (bits > 32) {
    put(value & 0xffffffffu, 32);
    put(value >> 32, bits - 32);
    return;
  }
  acc_ |= value << nacc_;
  nacc_ += bits;
  while (nacc_ >= 8) {
    out_.push_back(static_cast<std::uint8_t>(acc_));
    acc_ >>= 8;
    nacc_ -= 8;
  }
}

void BitWriter::flush() {
  if (nacc_ > 0) out_.push_back(static_cast<std::uint8_t>(acc_));
  acc_ = 0;
  nacc_ = 0;
}

std::uint64_t BitReader::get(int bits) {
  if (bits > 32) {
    const std::uint64_t low = get(32);
    return low | (get(bits - 32) << 32);
  }
  while (nacc_ < bits) {
    if (pos_ >= size_)
      throw Error(context_, cat("truncated: the coefficient bits end after ", size_, " bytes"));
    acc_ |= static_cast<std::uint64_t>(data_[pos_++]) << nacc_;
    nacc_ += 8;
  }
  const std::uint64_t v = acc_ & ((std::uint64_t{1} << bits) - 1);
  acc_ >>= bits;
  nacc_ -= bits;
  return v;
}

std::uint32_t crc32(const void* data, std::size_t size, std::uint32_t crc) {
  static const std::array<std::uint32_t, 256> table = [] {
    std::array<std::uint32_t, 256> t{};
    for (std::uint32_t i = 0; i < 256; ++i) {
      std::uint32_t c = i;
      for (int k = 0; k < 8; ++k) c = (c & 1) ? 0xedb88320u ^ (c >> 1) : c >> 1;
      t[i] = c;
    }
    return t;
  }();
  const auto* p = static_cast<const std::uint8_t*>(data);
  crc = ~crc;
  for (std::size_t i = 0; i < size; ++i) crc = table[(crc ^ p[i]) & 0xffu] ^ (crc >> 8);
  return ~crc;
}

}  // namespace climate
