// A checkpoint that does not fit (a full disk; here a file-size limit, RLIMIT_FSIZE, with SIGXFSZ
// ignored so the write fails with EFBIG as on a full disk it fails with ENOSPC): a clear error
// naming the checkpoint, the bytes written and missing, and the previous checkpoint intact, with
// no temporary left behind. The test runs in its own process (gtest_discover_tests), so the limit
// it sets does not reach other tests; it restores it anyway.
#include <signal.h>
#include <sys/resource.h>

#include <filesystem>

#include "exadnn/exadnn.h"
#include "scratch_dir.h"
#include "testing.h"

using namespace exadnn;
using exadnn::testing::ScratchDir;
namespace fs = std::filesystem;

namespace {

// Sets RLIMIT_FSIZE's soft limit to `bytes` and ignores SIGXFSZ until destroyed.
class FileSizeLimit {
 public:
  explicit FileSizeLimit(rlim_t bytes) {
    ::getrlimit(RLIMIT_FSIZE, &previous_);
    rlimit limited = previous_;
    limited.rlim_cur = bytes;
    ::setrlimit(RLIMIT_FSIZE, &limited);
    struct sigaction ignore {};
    ignore.sa_handler = SIG_IGN;
    ::sigaction(SIGXFSZ, &ignore, &previous_action_);
  }
  ~FileSizeLimit() {
    ::setrlimit(RLIMIT_FSIZE, &previous_);
    ::sigaction(SIGXFSZ, &previous_action_, nullptr);
  }

 private:
  rlimit previous_{};
  struct sigaction previous_action_ {};
};

}  // namespace

TEST(CheckpointFullDisk, AWriteThatDoesNotFitIsNamedAndThePreviousCheckpointStays) {
  ScratchDir dir("exadnn_io_");
  const std::string target = dir.file("last.ckpt");
  StateDict small;
  small.insert("w", arange(0, 16, 1, TensorOptions(DType::f32)));
  io::save_checkpoint(target, small, {{"epoch", "1"}});
  StateDict large;
  large.insert("w", ones({1 << 18}));  // 1 MiB of f32: more than the limit below
  {
    const FileSizeLimit limit(64 << 10);
    try {
      io::save_checkpoint(target, large, {{"epoch", "2"}});
      FAIL() << "no error for a checkpoint larger than the file-size limit";
    } catch (const Error& e) {
      const std::string what = e.what();
      EXPECT_NE(what.find("writing " + target), std::string::npos) << what;
      EXPECT_NE(what.find("stopped after 65536 of"), std::string::npos) << what;
      EXPECT_NE(what.find("missing: File too large"), std::string::npos) << what;
      EXPECT_NE(what.find(target + " is unchanged"), std::string::npos) << what;
    }
  }
  const io::Checkpoint kept = io::load_checkpoint(target);
  EXPECT_EQ(kept.metadata.at("epoch"), "1");
  EXPECT_TRUE(exadnn::testing::all_close(kept.tensors.at("w"), small.at("w")));
  int files = 0;
  for (const auto& entry : fs::directory_iterator(dir.path())) {
    ++files;
    EXPECT_EQ(entry.path().filename(), "last.ckpt") << "left behind: " << entry.path();
  }
  EXPECT_EQ(files, 1);
}
