// Temporaries of saves killed mid-write ("<target>.tmp.<pid>") are removed by the next save into
// the folder: the target's own of dead processes, and any old one; fresh ones that may belong to a
// save in progress (a live process here, or any process on another host) are left alone.
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <fstream>
#include <thread>

#include "checkpoint_files.h"
#include "exadnn/io/checkpoint.h"
#include "testing.h"

using namespace exadnn;
using exadnn::testing::ScratchDir;
namespace fs = std::filesystem;

namespace {

// The id of a process that has exited and been reaped (so no process has it, for now).
pid_t dead_pid() {
  const pid_t child = ::fork();
  if (child == 0) ::_exit(0);
  ::waitpid(child, nullptr, 0);
  return child;
}

void write_file(const fs::path& path, const std::string& content) {
  std::ofstream f(path, std::ios::binary);
  f << content;
}

StateDict small_state() {
  StateDict s;
  s.insert("x", ones({4}));
  return s;
}

}  // namespace

TEST(CheckpointTemporaries, StaleOnesAreRemovedByTheNextSave) {
  ScratchDir dir;
  const fs::path target = dir.file("last.ckpt");
  const std::string partial = "EXADNNCK partial";  // what a killed save leaves
  const fs::path dead = target.string() + ".tmp." + std::to_string(dead_pid());
  const fs::path live = target.string() + ".tmp." + std::to_string(::getppid());
  const fs::path old_live = dir.file("best.ckpt.tmp." + std::to_string(::getppid()));
  const fs::path other_dead = dir.file("best.ckpt.tmp." + std::to_string(dead_pid()));
  const fs::path other_old = dir.file("epoch3.ckpt.tmp." + std::to_string(dead_pid()));
  const fs::path empty_dead = target.string() + ".tmp." + std::to_string(dead_pid());
  const fs::path not_ours = dir.file("notes.tmp." + std::to_string(dead_pid()));
  for (const fs::path& p : {dead, live, old_live, other_dead, other_old}) write_file(p, partial);
  write_file(not_ours, "a user's file that happens to have such a name");
  write_file(empty_dead, "");  // killed before it wrote a byte
  for (const fs::path& p : {old_live, other_old})
    fs::last_write_time(p, fs::file_time_type::clock::now() - std::chrono::hours(2));

  io::save_checkpoint(target.string(), small_state());
  EXPECT_FALSE(fs::exists(dead)) << "a dead process's temporary of this target";
  EXPECT_FALSE(fs::exists(empty_dead)) << "an empty temporary of this target";
  EXPECT_FALSE(fs::exists(old_live)) << "a temporary older than an hour";
  EXPECT_FALSE(fs::exists(other_old)) << "another checkpoint's temporary older than an hour";
  // Another checkpoint's writer may be alive on another host sharing the folder.
  EXPECT_TRUE(fs::exists(other_dead)) << "another checkpoint's fresh temporary";
  EXPECT_TRUE(fs::exists(live)) << "a live process's fresh temporary: a save in progress";
  EXPECT_TRUE(fs::exists(not_ours)) << "not a checkpoint temporary";
  EXPECT_TRUE(fs::exists(target));
}

// The defect as reported: a save killed by SIGKILL leaves its temporary behind forever.
TEST(CheckpointTemporaries, ASaveKilledMidWriteIsCleanedUp) {
  ScratchDir dir;
  const std::string target = dir.file("last.ckpt");
  StateDict big;
  big.insert("w", ones({16 << 20}));  // 64 MiB: the write takes long enough to be caught
  fs::path leftover;
  for (int attempt = 0; attempt < 50 && leftover.empty(); ++attempt) {
    const pid_t child = ::fork();
    ASSERT_GE(child, 0);
    if (child == 0) {
      try {
        for (;;) io::save_checkpoint(target, big);
      } catch (...) {
      }
      ::_exit(1);
    }
    const fs::path temp = target + ".tmp." + std::to_string(child);
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
    while (!fs::exists(temp) && std::chrono::steady_clock::now() < deadline)
      std::this_thread::sleep_for(std::chrono::microseconds(200));
    ::kill(child, SIGKILL);
    ::waitpid(child, nullptr, 0);
    if (fs::exists(temp)) leftover = temp;  // else it was renamed just before the kill: again
  }
  ASSERT_FALSE(leftover.empty()) << "no save was caught mid-write";
  io::save_checkpoint(target, small_state());
  EXPECT_FALSE(fs::exists(leftover));
  EXPECT_EQ(exadnn::testing::values(io::load_checkpoint(target).tensors.at("x")),
            (std::vector<double>{1, 1, 1, 1}));
}
