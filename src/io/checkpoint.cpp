#include "exadnn/io/checkpoint.h"

#include <fcntl.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <vector>

#include "exadnn/ops/factories.h"

namespace exadnn::io {

namespace {

constexpr char kMagic[8] = {'E', 'X', 'A', 'D', 'N', 'N', 'C', 'K'};

// FNV-1a, 64 bit, continued over several buffers.
uint64_t fnv1a(const void* data, size_t n, uint64_t h = 0xcbf29ce484222325ull) {
  const auto* p = static_cast<const unsigned char*>(data);
  for (size_t i = 0; i < n; ++i) h = (h ^ p[i]) * 0x100000001b3ull;
  return h;
}

template <class T>
void append(std::vector<char>& out, const T& value) {
  const char* p = reinterpret_cast<const char*>(&value);
  out.insert(out.end(), p, p + sizeof(T));
}

// Writes all bytes, then flushes them to the disk; throws naming the file on failure.
void write_durably(const std::string& path, const std::vector<char>& bytes) {
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  EXADNN_CHECK(fd >= 0, "save_checkpoint", "cannot create ", path, ": ", std::strerror(errno));
  size_t done = 0;
  while (done < bytes.size()) {
    const ssize_t n = ::write(fd, bytes.data() + done, bytes.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      const int err = errno;
      ::close(fd);
      throw Error("save_checkpoint", detail::cat("writing ", path, " failed: ", std::strerror(err)));
    }
    done += static_cast<size_t>(n);
  }
  const bool synced = ::fsync(fd) == 0;
  const int err = errno;
  ::close(fd);
  EXADNN_CHECK(synced, "save_checkpoint", "fsync of ", path, " failed: ", std::strerror(err));
}

void fsync_directory(const std::filesystem::path& dir) {
  const int fd = ::open(dir.empty() ? "." : dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return;  // best effort: some file systems do not allow it
  ::fsync(fd);
  ::close(fd);
}

}  // namespace

void save_checkpoint(const std::string& path, const StateDict& tensors,
                     const std::map<std::string, std::string>& metadata) {
  nlohmann::json header;
  header["metadata"] = metadata;
  header["tensors"] = nlohmann::json::array();
  std::vector<Tensor> dense;
  uint64_t offset = 0;
  for (const auto& [name, t] : tensors) {
    EXADNN_CHECK(t.defined(), "save_checkpoint", "tensor '", name, "' is undefined");
    Tensor d = t.detach().to(Device::cpu()).contiguous();
    header["tensors"].push_back({{"name", name},
                                 {"dtype", dtype_name(d.dtype())},
                                 {"shape", d.shape().vec()},
                                 {"offset", offset},
                                 {"bytes", d.nbytes()}});
    offset += d.nbytes();
    dense.push_back(std::move(d));
  }
  const std::string header_text = header.dump();

  std::vector<char> bytes;
  bytes.reserve(8 + 4 + 8 + header_text.size() + offset + 8);
  bytes.insert(bytes.end(), kMagic, kMagic + 8);
  append(bytes, kCheckpointVersion);
  append(bytes, static_cast<uint64_t>(header_text.size()));
  bytes.insert(bytes.end(), header_text.begin(), header_text.end());
  for (const Tensor& d : dense) {
    const char* p = static_cast<const char*>(d.data_ptr());
    bytes.insert(bytes.end(), p, p + d.nbytes());
  }
  append(bytes, fnv1a(bytes.data(), bytes.size()));

  const std::filesystem::path target(path);
  const std::string temp = path + ".tmp." + std::to_string(::getpid());
  try {
    write_durably(temp, bytes);
  } catch (...) {
    std::remove(temp.c_str());
    throw;
  }
  std::error_code ec;
  std::filesystem::rename(temp, target, ec);
  if (ec) {
    std::remove(temp.c_str());
    throw Error("save_checkpoint", detail::cat("cannot rename ", temp, " to ", path, ": ",
                                               ec.message()));
  }
  fsync_directory(target.parent_path());
}

Checkpoint load_checkpoint(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  EXADNN_CHECK(in.good(), "load_checkpoint", "cannot open ", path);
  std::vector<char> bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const auto fail = [&](const std::string& what) {
    throw Error("load_checkpoint", detail::cat(path, ": ", what));
  };
  if (bytes.size() < 8 + 4 + 8 + 8 || std::memcmp(bytes.data(), kMagic, 8) != 0)
    fail("not an exadnn checkpoint (bad magic number)");
  uint64_t stored = 0;
  std::memcpy(&stored, bytes.data() + bytes.size() - 8, 8);
  if (fnv1a(bytes.data(), bytes.size() - 8) != stored)
    fail("checksum mismatch: the file is truncated or corrupt");
  uint32_t version = 0;
  std::memcpy(&version, bytes.data() + 8, 4);
  if (version > kCheckpointVersion)
    fail(detail::cat("format version ", version, " is newer than this exadnn reads (",
                     kCheckpointVersion, ")"));
  uint64_t header_size = 0;
  std::memcpy(&header_size, bytes.data() + 12, 8);
  const uint64_t data_start = 20 + header_size;
  if (data_start > bytes.size() - 8) fail("header runs past the end of the file");

  Checkpoint out;
  nlohmann::json header;
  try {
    header = nlohmann::json::parse(bytes.begin() + 20, bytes.begin() + static_cast<int64_t>(data_start));
    out.metadata = header.at("metadata").get<std::map<std::string, std::string>>();
    const uint64_t data_size = bytes.size() - 8 - data_start;
    for (const auto& entry : header.at("tensors")) {
      const std::string name = entry.at("name").get<std::string>();
      const DType dtype = parse_dtype(entry.at("dtype").get<std::string>());
      const Shape shape(entry.at("shape").get<std::vector<int64_t>>());
      const uint64_t offset = entry.at("offset").get<uint64_t>();
      const uint64_t nbytes = entry.at("bytes").get<uint64_t>();
      if (nbytes != static_cast<uint64_t>(shape.numel()) * dtype_size(dtype) ||
          offset + nbytes > data_size)
        fail(detail::cat("tensor '", name, "' does not fit in the data section"));
      Tensor t = empty(shape, dtype);
      if (nbytes) std::memcpy(t.data_ptr(), bytes.data() + data_start + offset, nbytes);
      out.tensors.insert(name, t);
    }
  } catch (const nlohmann::json::exception& e) {
    fail(detail::cat("malformed header: ", e.what()));
  }
  return out;
}

}  // namespace exadnn::io
