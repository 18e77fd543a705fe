// Checkpoint writing: the whole file is assembled in memory, written to a temporary in the target's
// folder, fsync'ed and renamed over the target (see exadnn/io/checkpoint.h).
#include "exadnn/io/checkpoint.h"

#include <fcntl.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <vector>

#include "io/checkpoint_format.h"
#include "io/temp_files.h"

namespace exadnn::io {

namespace {

template <class T>
void append(std::vector<char>& out, const T& value) {
  const char* p = reinterpret_cast<const char*>(&value);
  out.insert(out.end(), p, p + sizeof(T));
}

// Writes all bytes, then flushes them to the disk; throws naming the file on failure.
// Writes `bytes` to the temporary `path` of checkpoint `target`, flushed to the disk. A write that
// cannot finish (a full disk, a file-size limit) names both files and the bytes that did not fit.
void write_durably(const std::string& path, const std::string& target,
                   const std::vector<char>& bytes) {
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  EXADNN_CHECK(fd >= 0, "save_checkpoint", "cannot create ", path, ": ", std::strerror(errno));
  size_t done = 0;
  while (done < bytes.size()) {
    errno = 0;
    const ssize_t n = ::write(fd, bytes.data() + done, bytes.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      const int err = errno == 0 ? ENOSPC : errno;  // 0 bytes written and no error: no room
      ::close(fd);
      throw Error("save_checkpoint",
                  detail::cat("writing ", target, " (through ", path, ") stopped after ", done,
                              " of ", bytes.size(), " bytes, ", bytes.size() - done,
                              " missing: ", std::strerror(err), "; ", target, " is unchanged"));
    }
    done += static_cast<size_t>(n);
  }
  const bool synced = ::fsync(fd) == 0;
  const int err = errno;
  ::close(fd);
  EXADNN_CHECK(synced, "save_checkpoint", "fsync of ", path, " failed: ", std::strerror(err), "; ",
               target, " is unchanged");
}

void fsync_directory(const std::filesystem::path& dir) {
  const int fd = ::open(dir.empty() ? "." : dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return;  // best effort: some file systems do not allow it
  ::fsync(fd);
  ::close(fd);
}

// The file's bytes: preamble, header, tensor data back to back in `tensors` order, checksum.
std::vector<char> serialise(const StateDict& tensors,
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
  bytes.reserve(internal::kPreambleBytes + header_text.size() + offset + internal::kChecksumBytes);
  bytes.insert(bytes.end(), internal::kMagic, internal::kMagic + sizeof internal::kMagic);
  append(bytes, kCheckpointVersion);
  append(bytes, static_cast<uint64_t>(header_text.size()));
  bytes.insert(bytes.end(), header_text.begin(), header_text.end());
  for (const Tensor& d : dense) {
    const char* p = static_cast<const char*>(d.data_ptr());
    bytes.insert(bytes.end(), p, p + d.nbytes());
  }
  append(bytes, internal::fnv1a(bytes.data(), bytes.size()));
  return bytes;
}

}  // namespace

void save_checkpoint(const std::string& path, const StateDict& tensors,
                     const std::map<std::string, std::string>& metadata) {
  const std::vector<char> bytes = serialise(tensors, metadata);
  const std::filesystem::path target(path);
  // Leftovers of saves killed mid-write would otherwise stay forever (and may be large).
  internal::remove_stale_temporaries(target);
  const std::string temp = internal::temporary_path(path);
  try {
    write_durably(temp, path, bytes);
  } catch (...) {
    std::remove(temp.c_str());
    throw;
  }
  std::error_code ec;
  std::filesystem::rename(temp, target, ec);
  if (ec) {
    std::remove(temp.c_str());
    throw Error("save_checkpoint",
                detail::cat("cannot rename ", temp, " to ", path, ": ", ec.message()));
  }
  fsync_directory(target.parent_path());
}

}  // namespace exadnn::io
