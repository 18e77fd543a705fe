// Helpers of the data tests: a temporary directory per test, and files written byte by byte
// (plain or gzip) so readers are checked against fixtures they did not write.
#pragma once

#include <gtest/gtest.h>
#include <unistd.h>
#include <zlib.h>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "scratch_dir.h"

namespace exadnn::testing {

/// The data tests' scratch folder.
class TempDir : public ScratchDir {
 public:
  TempDir() : ScratchDir("exadnn_data_") {}
};

inline void write_bytes(const std::string& path, const std::vector<unsigned char>& bytes) {
  std::ofstream f(path, std::ios::binary);
  f.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
  ASSERT_TRUE(f.good()) << path;
}

inline void write_text(const std::string& path, const std::string& text) {
  std::ofstream f(path, std::ios::binary);
  f << text;
  ASSERT_TRUE(f.good()) << path;
}

/// Writes `bytes` gzip-compressed (zlib's gz* API).
inline void write_gzip(const std::string& path, const std::vector<unsigned char>& bytes) {
  gzFile f = gzopen(path.c_str(), "wb");
  ASSERT_NE(f, nullptr) << path;
  if (!bytes.empty())
    ASSERT_EQ(gzwrite(f, bytes.data(), static_cast<unsigned>(bytes.size())),
              static_cast<int>(bytes.size()));
  ASSERT_EQ(gzclose(f), Z_OK);
}

inline std::vector<unsigned char> read_bytes(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>()};
}

inline void put_u32(std::vector<unsigned char>& out, uint32_t v) {
  for (int s = 24; s >= 0; s -= 8) out.push_back(static_cast<unsigned char>(v >> s));
}

/// An IDX file's bytes: magic (0, 0, type, dims), extents, then `payload` as given.
inline std::vector<unsigned char> idx_bytes(uint8_t type, const std::vector<uint32_t>& dims,
                                            const std::vector<unsigned char>& payload) {
  std::vector<unsigned char> out = {0, 0, type, static_cast<unsigned char>(dims.size())};
  for (uint32_t d : dims) put_u32(out, d);
  out.insert(out.end(), payload.begin(), payload.end());
  return out;
}

}  // namespace exadnn::testing
