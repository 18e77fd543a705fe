// load_checkpoint on files whose checksum is valid but whose header does not describe the data:
// each must be an Error naming the file and the field, never a crash or a read of wrong bytes.
#include <nlohmann/json.hpp>

#include "checkpoint_files.h"
#include "exadnn/io/checkpoint.h"
#include "testing.h"

using namespace exadnn;
using exadnn::testing::i64_data;
using exadnn::testing::ScratchDir;
using exadnn::testing::tensor_entry;
using exadnn::testing::write_checkpoint;
using nlohmann::json;

namespace {

json header_with(const json& tensors, const json& metadata = json::object()) {
  return {{"metadata", metadata}, {"tensors", tensors}};
}

}  // namespace

TEST(CheckpointValidation, AHandMadeFileReads) {
  ScratchDir dir;
  const std::string path = dir.file("ok.ckpt");
  write_checkpoint(path,
                   header_with(json::array({tensor_entry("a", "i64", {2}, 0, 16),
                                            tensor_entry("b", "i64", json::array(), 16, 8)}),
                               {{"epoch", "3"}}),
                   i64_data({7, 8, 9}));
  const io::Checkpoint c = io::load_checkpoint(path);
  EXPECT_EQ(c.path, path);
  EXPECT_EQ(exadnn::testing::values(c.tensors.at("a")), (std::vector<double>{7, 8}));
  EXPECT_EQ(c.tensors.at("b").item<int64_t>(), 9);
  EXPECT_EQ(c.metadata.at("epoch"), "3");
}

// The defect: offset 2^64 - 8 plus 16 bytes wrapped around to 8 and passed the bounds check.
TEST(CheckpointValidation, OffsetNearTwoToThe64IsRejected) {
  ScratchDir dir;
  const std::string path = dir.file("wrap.ckpt");
  write_checkpoint(path,
                   header_with(json::array({tensor_entry("rng", "i64", {2}, ~uint64_t{7}, 16)})),
                   i64_data({1, 2}));
  EXPECT_EXADNN_ERROR(io::load_checkpoint(path), "load_checkpoint", path,
                      "tensors[0] ('rng').offset", "18446744073709551608");
}

TEST(CheckpointValidation, TensorsMustLieBackToBackAndCoverTheData) {
  ScratchDir dir;
  const std::string path = dir.file("layout.ckpt");
  // Both tensors on the same bytes.
  write_checkpoint(path,
                   header_with(json::array(
                       {tensor_entry("a", "i64", {1}, 0, 8), tensor_entry("b", "i64", {1}, 0, 8)})),
                   i64_data({1, 2}));
  EXPECT_EXADNN_ERROR(io::load_checkpoint(path), path, "tensors[1] ('b').offset is 0",
                      "must start at 8");
  // Past the end of the data.
  write_checkpoint(path, header_with(json::array({tensor_entry("a", "i64", {3}, 0, 24)})),
                   i64_data({1, 2}));
  EXPECT_EXADNN_ERROR(io::load_checkpoint(path), path, "tensor 'a'",
                      "does not fit in the data section of 16 bytes");
  // Bytes that belong to no tensor.
  write_checkpoint(path, header_with(json::array({tensor_entry("a", "i64", {1}, 0, 8)})),
                   i64_data({1, 2}));
  EXPECT_EXADNN_ERROR(io::load_checkpoint(path), path, "8 bytes belong to no tensor");
}

TEST(CheckpointValidation, SizeMustMatchDtypeAndShape) {
  ScratchDir dir;
  const std::string path = dir.file("size.ckpt");
  write_checkpoint(path, header_with(json::array({tensor_entry("a", "i64", {2}, 0, 8)})),
                   i64_data({1}));
  EXPECT_EXADNN_ERROR(io::load_checkpoint(path), path, "tensors[0] ('a').bytes is 8",
                      "i64 [2] tensor has 16 bytes");
  // Extents whose product overflows 64 bits.
  write_checkpoint(path,
                   header_with(json::array(
                       {tensor_entry("a", "f32", {uint64_t{1} << 40, uint64_t{1} << 40}, 0, 0)})),
                   "");
  EXPECT_EXADNN_ERROR(io::load_checkpoint(path), path, "tensors[0] ('a').shape",
                      "impossibly large");
  write_checkpoint(path, header_with(json::array({tensor_entry("a", "f32", {-1}, 0, 0)})), "");
  EXPECT_EXADNN_ERROR(io::load_checkpoint(path), path, "tensors[0] ('a').shape",
                      "non-negative integer, got the integer -1");
  write_checkpoint(path, header_with(json::array({tensor_entry("a", "f32", {1.5}, 0, 0)})), "");
  EXPECT_EXADNN_ERROR(io::load_checkpoint(path), path, "non-negative integer, got the number 1.5");
}

TEST(CheckpointValidation, EveryEntryFieldIsChecked) {
  ScratchDir dir;
  const std::string path = dir.file("fields.ckpt");
  write_checkpoint(path, header_with(json::array({tensor_entry("a", "f128", {1}, 0, 16)})),
                   i64_data({0, 0}));
  EXPECT_EXADNN_ERROR(io::load_checkpoint(path), path, "tensors[0] ('a').dtype",
                      "unknown dtype 'f128'");
  json no_offset = tensor_entry("a", "i64", {1}, 0, 8);
  no_offset.erase("offset");
  write_checkpoint(path, header_with(json::array({no_offset})), i64_data({0}));
  EXPECT_EXADNN_ERROR(io::load_checkpoint(path), path, "tensors[0] ('a').offset is missing");
  json negative = tensor_entry("a", "i64", {1}, 0, 8);
  negative["offset"] = -8;
  write_checkpoint(path, header_with(json::array({negative})), i64_data({0}));
  EXPECT_EXADNN_ERROR(io::load_checkpoint(path), path, "('a').offset must be a non-negative");
  write_checkpoint(path,
                   header_with(json::array(
                       {tensor_entry("a", "i64", {1}, 0, 8), tensor_entry("a", "i64", {1}, 8, 8)})),
                   i64_data({0, 0}));
  EXPECT_EXADNN_ERROR(io::load_checkpoint(path), path, "a second tensor named 'a'");
  write_checkpoint(path, header_with(json::array({42})), "");
  EXPECT_EXADNN_ERROR(io::load_checkpoint(path), path, "tensors[0] must be an object");
}

TEST(CheckpointValidation, HeaderAndMetadataShapes) {
  ScratchDir dir;
  const std::string path = dir.file("header.ckpt");
  write_checkpoint(path, header_with(json::array(), {{"epoch", 3}}), "");
  EXPECT_EXADNN_ERROR(io::load_checkpoint(path), path,
                      "metadata 'epoch' must be a string, got the integer 3");
  write_checkpoint(path, json{{"tensors", json::array()}}, "");
  EXPECT_EXADNN_ERROR(io::load_checkpoint(path), path, "'metadata' is missing");
  write_checkpoint(path, json{{"metadata", json::object()}, {"tensors", 5}}, "");
  EXPECT_EXADNN_ERROR(io::load_checkpoint(path), path, "'tensors' must be an array");
  {
    std::ofstream f(path, std::ios::binary | std::ios::trunc);
    f << exadnn::testing::checkpoint_bytes("{not json", "");
  }
  EXPECT_EXADNN_ERROR(io::load_checkpoint(path), path, "the header is not valid JSON");
}

// A header size near 2^64 made "20 + size" wrap to a small number that passed the check.
TEST(CheckpointValidation, HeaderSizeNearTwoToThe64IsRejected) {
  ScratchDir dir;
  const std::string path = dir.file("hsize.ckpt");
  {
    std::ofstream f(path, std::ios::binary | std::ios::trunc);
    f << exadnn::testing::checkpoint_bytes("{}", "", 1, ~uint64_t{0} - 3);
  }
  EXPECT_EXADNN_ERROR(io::load_checkpoint(path), path, "header size", "runs past the end");
  {
    std::ofstream f(path, std::ios::binary | std::ios::trunc);
    f << exadnn::testing::checkpoint_bytes("{}", "", 0);
  }
  EXPECT_EXADNN_ERROR(io::load_checkpoint(path), path, "format version 0");
}
