#include "exadnn/train/output_files.h"

#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>

#include "exadnn/core/error.h"

namespace exadnn::train {

namespace fs = std::filesystem;

namespace {

void check_writable_dir(const fs::path& dir, const char* option, const std::string& target) {
  const fs::path d = dir.empty() ? fs::path(".") : dir;
  std::error_code ec;
  EXADNN_CHECK(fs::is_directory(d, ec), "train", option, " ", target, ": the folder ", d.string(),
               " does not exist");
  EXADNN_CHECK(::access(d.c_str(), W_OK | X_OK) == 0, "train", option, " ", target,
               ": cannot write into ", d.string(), " (", std::strerror(errno), ")");
}

void check_writable_file(const std::string& path, const char* option) {
  if (path.empty()) return;
  const fs::path p(path);
  std::error_code ec;
  if (fs::exists(p, ec)) {
    EXADNN_CHECK(!fs::is_directory(p, ec), "train", option, " ", path, " is a folder, not a file");
    EXADNN_CHECK(::access(p.c_str(), W_OK) == 0, "train", option, " ", path,
                 " cannot be overwritten (", std::strerror(errno), ")");
    return;
  }
  check_writable_dir(p.parent_path(), option, path);
}

}  // namespace

void check_output_files(const TrainOptions& options) {
  check_writable_file(options.metrics_out, "--metrics-out");
  check_writable_file(options.plot, "--plot");
  if (options.checkpoint_dir.empty()) return;
  const fs::path dir(options.checkpoint_dir);
  std::error_code ec;
  fs::create_directories(dir, ec);
  EXADNN_CHECK(!ec, "train", "--checkpoint-dir ", dir.string(), ": cannot create it (",
               ec.message(), ")");
  check_writable_dir(dir, "--checkpoint-dir", dir.string());
  const fs::path last = dir / "last.ckpt";
  EXADNN_CHECK(options.resume || options.overwrite || !fs::exists(last, ec), "train", last.string(),
               " already exists: continue that run with --resume, or replace it with --overwrite");
}

}  // namespace exadnn::train
