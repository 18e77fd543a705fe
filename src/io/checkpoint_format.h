// The byte layout shared by the checkpoint writer and reader (see exadnn/io/checkpoint.h):
//   "EXADNNCK"  u32 format version  u64 header bytes  header (JSON)  tensor data  u64 checksum
#pragma once

#include <cstddef>
#include <cstdint>

namespace exadnn::io::internal {

inline constexpr char kMagic[8] = {'E', 'X', 'A', 'D', 'N', 'N', 'C', 'K'};
/// Bytes before the header: magic, version, header size.
inline constexpr size_t kPreambleBytes = 8 + 4 + 8;
/// Bytes of the trailing checksum.
inline constexpr size_t kChecksumBytes = 8;

/// FNV-1a, 64 bit, continued over several buffers by passing the previous result as `h`.
inline uint64_t fnv1a(const void* data, size_t n, uint64_t h = 0xcbf29ce484222325ull) {
  const auto* p = static_cast<const unsigned char*>(data);
  for (size_t i = 0; i < n; ++i) h = (h ^ p[i]) * 0x100000001b3ull;
  return h;
}

}  // namespace exadnn::io::internal
