// Shared by the harnesses (one per reader of outside bytes, docs/fuzzing.md): the input as a file
// for the readers that take a path, and the rule every harness applies to a reader's outcome.
#pragma once

#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>

#include "exadnn/core/error.h"

namespace exadnn::fuzz {

/// A file of this process that holds the current input (rewritten for every input, removed at
/// exit); `suffix` gives it the extension its reader expects (".h5", ".ckpt").
class InputFile {
 public:
  explicit InputFile(const std::string& suffix)
      : path_((std::filesystem::temp_directory_path() /
               ("exadnn-fuzz-" + std::to_string(::getpid()) + suffix))
                  .string()) {}
  ~InputFile() { std::remove(path_.c_str()); }
  InputFile(const InputFile&) = delete;
  InputFile& operator=(const InputFile&) = delete;

  /// Replaces the file's contents with the `size` bytes at `data`.
  const std::string& write(const uint8_t* data, size_t size) const {
    std::FILE* f = std::fopen(path_.c_str(), "wb");
    if (!f) throw std::runtime_error("fuzz: cannot write " + path_);
    if (size) std::fwrite(data, 1, size, f);
    std::fclose(f);
    return path_;
  }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

/// Runs `read`: it may succeed or reject the input with an exadnn::Error (a clear message is the
/// expected outcome of bad bytes). Anything else (another exception, a crash, a sanitizer report,
/// a hang) escapes to libFuzzer (or the replay program) as a bug. With EXADNN_FUZZ_VERBOSE set,
/// prints each outcome (to see what a seed or a regression input does).
template <class Read>
void accept_or_reject(Read&& read) {
  static const bool verbose = std::getenv("EXADNN_FUZZ_VERBOSE") != nullptr;
  try {
    read();
    if (verbose) std::fprintf(stderr, "  accepted\n");
  } catch (const exadnn::Error& e) {
    if (verbose) std::fprintf(stderr, "  rejected: %s\n", e.what());
  }
}

}  // namespace exadnn::fuzz
