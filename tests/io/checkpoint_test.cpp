// Checkpoints: round trip of every dtype, metadata, atomic replacement, and corrupt files.
#include <filesystem>
#include <fstream>

#include "exadnn/io/checkpoint.h"
#include "testing.h"

using namespace exadnn;
namespace fs = std::filesystem;

namespace {
fs::path scratch(const std::string& name) {
  fs::path dir = fs::temp_directory_path() / ("exadnn_ckpt_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  return dir / name;
}
}  // namespace

TEST(Checkpoint, RoundTripsEveryDtypeAndMetadata) {
  StateDict s;
  s.insert("w", randn({3, 4}));
  s.insert("strided", randn({4, 3}, DType::f64).t());
  s.insert("half", randn({5}).to(DType::f16));
  s.insert("bf", randn({5}).to(DType::bf16));
  s.insert("ids", arange(7, DType::i64));
  s.insert("i", arange(3, DType::i32));
  s.insert("bytes", arange(4, DType::u8));
  s.insert("mask", from_vector<double>({1, 0}).to(DType::boolean));
  s.insert("scalar", scalar_tensor(2.5, DType::f64));
  s.insert("empty", zeros({0, 3}));
  const fs::path path = scratch("roundtrip.ckpt");
  io::save_checkpoint(path, s, {{"epoch", "3"}, {"config", "lr: 0.1\n"}});
  const io::Checkpoint c = io::load_checkpoint(path);
  EXPECT_EQ(c.metadata.at("epoch"), "3");
  EXPECT_EQ(c.metadata.at("config"), "lr: 0.1\n");
  ASSERT_EQ(c.tensors.size(), s.size());
  for (const auto& [name, t] : s) {
    const Tensor& r = c.tensors.at(name);
    EXPECT_EQ(r.dtype(), t.dtype()) << name;
    EXPECT_EQ(r.shape(), t.shape()) << name;
    EXPECT_EQ(exadnn::testing::values(r), exadnn::testing::values(t)) << name;
  }
  EXPECT_EQ(c.tensors.entries()[0].first, "w");  // order kept
}

TEST(Checkpoint, ReplacesAtomicallyAndLeavesNoTemporaries) {
  const fs::path path = scratch("atomic.ckpt");
  StateDict a, b;
  a.insert("x", ones({2}));
  b.insert("x", zeros({2}));
  io::save_checkpoint(path, a);
  io::save_checkpoint(path, b);
  EXPECT_EQ(exadnn::testing::values(io::load_checkpoint(path).tensors.at("x")),
            (std::vector<double>{0, 0}));
  for (const auto& entry : fs::directory_iterator(path.parent_path()))
    EXPECT_EQ(entry.path().string().find(".tmp."), std::string::npos) << entry.path();
}

TEST(Checkpoint, CorruptFilesAreNamedErrors) {
  const fs::path path = scratch("corrupt.ckpt");
  StateDict s;
  s.insert("x", randn({100}));
  io::save_checkpoint(path, s);
  std::string bytes;
  {
    std::ifstream in(path, std::ios::binary);
    bytes.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  }
  auto write = [&](const std::string& content) {
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out << content;
  };
  write(bytes.substr(0, bytes.size() / 2));
  EXPECT_EXADNN_ERROR(io::load_checkpoint(path), "load_checkpoint", path.string(), "checksum");
  std::string flipped = bytes;
  flipped[bytes.size() / 2] ^= 0x10;
  write(flipped);
  EXPECT_EXADNN_ERROR(io::load_checkpoint(path), "corrupt");
  write("not a checkpoint at all, just text");
  EXPECT_EXADNN_ERROR(io::load_checkpoint(path), "bad magic number");
  EXPECT_EXADNN_ERROR(io::load_checkpoint(scratch("missing.ckpt")), "cannot open", "missing.ckpt");
  EXPECT_EXADNN_ERROR(io::save_checkpoint("/nonexistent-dir/x.ckpt", s), "save_checkpoint",
                      "/nonexistent-dir/x.ckpt");
}
