#include "data/byte_stream.h"

#include <cerrno>
#include <cstring>

#include "exadnn/core/error.h"

namespace exadnn::data::internal {

ByteStream::ByteStream(std::string path, std::string where)
    : path_(std::move(path)), where_(std::move(where)) {
  file_ = std::fopen(path_.c_str(), "rb");
  EXADNN_CHECK(file_ != nullptr, where_, path_, ": cannot open: ", std::strerror(errno));
  unsigned char magic[2] = {0, 0};
  const size_t got = std::fread(magic, 1, 2, file_);
  gzip_ = got == 2 && magic[0] == 0x1f && magic[1] == 0x8b;
  if (std::fseek(file_, 0, SEEK_END) == 0) {
    const long end = std::ftell(file_);
    if (end >= 0) file_bytes_ = static_cast<uint64_t>(end);
  }
  std::rewind(file_);
  if (gzip_) {
    in_.resize(1 << 16);
    // 15 + 16: a gzip wrapper (not zlib or raw deflate), largest window.
    if (inflateInit2(&z_, 15 + 16) != Z_OK) {
      std::fclose(file_);
      throw Error(where_, path_ + ": cannot start zlib");
    }
    z_init_ = true;
  }
}

ByteStream::~ByteStream() {
  if (z_init_) inflateEnd(&z_);
  if (file_) std::fclose(file_);
}

uint64_t ByteStream::max_remaining() const {
  constexpr uint64_t kDeflateMaxRatio = 1032;
  if (file_bytes_ == UINT64_MAX) return UINT64_MAX;
  const uint64_t total = gzip_ ? file_bytes_ * kDeflateMaxRatio : file_bytes_;
  return total > position_ ? total - position_ : 0;
}

size_t ByteStream::read(void* dst, size_t n) {
  const size_t got = gzip_ ? read_gzip(dst, n) : read_plain(dst, n);
  position_ += got;
  return got;
}

size_t ByteStream::read_plain(void* dst, size_t n) {
  const size_t got = std::fread(dst, 1, n, file_);
  EXADNN_CHECK(got == n || !std::ferror(file_), where_, path_,
               ": read error: ", std::strerror(errno));
  return got;
}

bool ByteStream::refill() {
  const size_t got = std::fread(in_.data(), 1, in_.size(), file_);
  EXADNN_CHECK(got > 0 || !std::ferror(file_), where_, path_,
               ": read error: ", std::strerror(errno));
  z_.next_in = in_.data();
  z_.avail_in = static_cast<uInt>(got);
  return got > 0;
}

size_t ByteStream::read_gzip(void* dst, size_t n) {
  auto* out = static_cast<unsigned char*>(dst);
  size_t done = 0;
  while (done < n && !stream_done_ && !truncated_) {
    if (z_.avail_in == 0 && !refill()) {
      truncated_ = true;  // the file ended inside a gzip member
      break;
    }
    const size_t chunk = std::min<size_t>(n - done, 1u << 30);
    z_.next_out = out + done;
    z_.avail_out = static_cast<uInt>(chunk);
    const int rc = inflate(&z_, Z_NO_FLUSH);
    done += chunk - z_.avail_out;
    if (rc == Z_STREAM_END) {
      // Another gzip member may follow (concatenated .gz files are one stream).
      if (z_.avail_in == 0 && !refill()) {
        stream_done_ = true;
      } else {
        inflateReset(&z_);
      }
      continue;
    }
    if (rc == Z_OK || rc == Z_BUF_ERROR) continue;
    throw Error(where_,
                path_ + ": corrupt gzip data (zlib: " +
                    (z_.msg ? std::string(z_.msg) : std::string("error ") + std::to_string(rc)) +
                    ")");
  }
  return done;
}

uint64_t ByteStream::skip_rest() {
  std::vector<unsigned char> buf(1 << 16);
  uint64_t total = 0;
  for (size_t got; (got = read(buf.data(), buf.size())) > 0;) total += got;
  return total;
}

std::vector<char> ByteStream::read_all() {
  std::vector<char> data;
  size_t size = 0;
  for (;;) {
    data.resize(size + std::max<size_t>(size, 1 << 16));
    const size_t want = data.size() - size;
    const size_t got = read(data.data() + size, want);
    size += got;
    if (got < want) break;
  }
  data.resize(size);
  return data;
}

}  // namespace exadnn::data::internal
