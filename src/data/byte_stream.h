// ByteStream: sequential reads of a file's bytes, gunzipped on the fly when the file starts with
// the gzip magic bytes (1f 8b). Readers use it to parse headers and then read payloads straight
// into tensor memory.
#pragma once

#include <zlib.h>

#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

namespace exadnn::data::internal {

/// A file's bytes, plain or gzip; errors are exadnn::Error(where, "<path>: ...").
class ByteStream {
 public:
  /// Opens `path`; throws naming the file if it cannot be opened.
  ByteStream(std::string path, std::string where);
  ~ByteStream();
  ByteStream(const ByteStream&) = delete;
  ByteStream& operator=(const ByteStream&) = delete;

  /// Reads up to n bytes into dst; fewer only at the end of the data. A corrupt gzip stream throws.
  size_t read(void* dst, size_t n);
  /// Reads and counts every remaining byte (0 when at the end).
  uint64_t skip_rest();
  /// The whole remaining content.
  std::vector<char> read_all();
  /// True when the file is gzip-compressed.
  bool gzip() const { return gzip_; }
  /// True when a gzip stream ended before its end-of-stream marker (the file was cut short).
  bool truncated() const { return truncated_; }
  /// Bytes handed out so far (after decompression).
  uint64_t position() const { return position_; }
  /// An upper bound of the bytes still to come: the rest of a plain file; for gzip, what the
  /// file's size can inflate to (deflate expands at most 1032 times); UINT64_MAX when the size
  /// is unknown (a pipe). Readers check a header's promise against it before allocating.
  uint64_t max_remaining() const;
  const std::string& path() const { return path_; }

 private:
  size_t read_plain(void* dst, size_t n);
  size_t read_gzip(void* dst, size_t n);
  bool refill();

  std::string path_;
  std::string where_;
  std::FILE* file_ = nullptr;
  bool gzip_ = false;
  bool truncated_ = false;
  bool stream_done_ = false;  // the last gzip member ended and no input follows
  uint64_t position_ = 0;
  uint64_t file_bytes_ = UINT64_MAX;  // the file's size (UINT64_MAX: unknown)
  z_stream z_{};
  bool z_init_ = false;
  std::vector<unsigned char> in_;
};

}  // namespace exadnn::data::internal
