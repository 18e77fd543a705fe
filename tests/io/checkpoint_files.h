// Helpers of the checkpoint tests: a scratch folder per test, and checkpoint files assembled byte
// by byte from a header given as JSON, with a valid checksum, so the reader's validation (not its
// checksum) must catch what is wrong with them.
#pragma once

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>

#include "scratch_dir.h"

namespace exadnn::testing {

/// FNV-1a 64 as the format defines it (written out here, not taken from the reader).
inline uint64_t fnv1a64(const std::string& bytes) {
  uint64_t h = 0xcbf29ce484222325ull;
  for (unsigned char c : bytes) h = (h ^ c) * 0x100000001b3ull;
  return h;
}

template <class T>
void append_le(std::string& out, T v) {
  char b[sizeof(T)];
  std::memcpy(b, &v, sizeof(T));  // the test machines are little-endian, like the format
  out.append(b, sizeof(T));
}

/// A checkpoint's bytes: magic, `version`, header size (or `header_size` when given), the header
/// text, `data`, then the checksum of all of it.
inline std::string checkpoint_bytes(const std::string& header_text, const std::string& data,
                                    uint32_t version = 1, uint64_t header_size = UINT64_MAX) {
  std::string out = "EXADNNCK";
  append_le(out, version);
  append_le(out, header_size == UINT64_MAX ? uint64_t{header_text.size()} : header_size);
  out += header_text;
  out += data;
  append_le(out, fnv1a64(out));
  return out;
}

/// Writes a checkpoint with `header` (JSON) and `data` to `path`.
inline void write_checkpoint(const std::string& path, const nlohmann::json& header,
                             const std::string& data) {
  std::ofstream f(path, std::ios::binary | std::ios::trunc);
  f << checkpoint_bytes(header.dump(), data);
  ASSERT_TRUE(f.good()) << path;
}

/// One header entry of the "tensors" list.
inline nlohmann::json tensor_entry(const std::string& name, const std::string& dtype,
                                   const nlohmann::json& shape, uint64_t offset, uint64_t bytes) {
  return {{"name", name}, {"dtype", dtype}, {"shape", shape}, {"offset", offset}, {"bytes", bytes}};
}

/// `n` little-endian i64 values as data bytes.
inline std::string i64_data(std::initializer_list<int64_t> values) {
  std::string out;
  for (int64_t v : values) append_le(out, v);
  return out;
}

}  // namespace exadnn::testing
