// The compressed-stream file (stream.h): round trips with both compressors, and clear errors on
// missing, foreign, truncated and corrupt files.
#include "climate/stream.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <iterator>

#include "climate/dct_compressor.h"
#include "climate/zfp_compressor.h"
#include "compress_test_fields.h"

namespace climate {
namespace {

using testing::expect_error;

const testing::GalewskyFields& fields() {
  static const testing::GalewskyFields f = testing::galewsky_fields(4, 3);  // n = 16
  return f;
}

std::string temp_path(const std::string& name) {
  return (std::filesystem::path(::testing::TempDir()) / ("climate_stream_" + name)).string();
}

std::vector<char> slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

void spit(const std::string& path, const std::vector<char>& bytes) {
  std::ofstream(path, std::ios::binary)
      .write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

// Writes 3 steps of (h, u, v), the fields scaled by the step so every step differs.
std::string write_three_steps(const Compressor& c, const std::string& name) {
  const std::string path = temp_path(name);
  StreamWriter w(path, c, 4, 3, {"h", "u", "v"});
  for (int s = 0; s < 3; ++s) {
    std::vector<FaceField> f = {fields().h, fields().u, fields().v};
    for (FaceField& x : f)
      for (double& v : x.data) v *= 1 + 0.1 * s;
    w.write(10 * s, 3600.0 * s, f);
  }
  EXPECT_EQ(w.bytes_written(), std::filesystem::file_size(path));
  return path;
}

TEST(CompressedStream, RoundTripGivesThePayloadsAndFieldsBack) {
  const DctCompressor dct({8, 4, 16});
  const ZfpCompressor zfp({ZfpParams::Mode::rate, 6});
  for (const Compressor* c :
       {static_cast<const Compressor*>(&dct), static_cast<const Compressor*>(&zfp)}) {
    const std::string path = write_three_steps(*c, c->describe().substr(0, 3));
    StreamReader r(path);
    EXPECT_EQ(r.header().version, 1u);
    EXPECT_EQ(r.header().kind, c->kind());
    EXPECT_EQ(r.header().parameters, c->parameters());
    EXPECT_EQ(r.header().ne, 4);
    EXPECT_EQ(r.header().p, 3);
    EXPECT_EQ(r.header().fields, (std::vector<std::string>{"h", "u", "v"}));
    StreamStep step;
    for (int s = 0; s < 3; ++s) {
      ASSERT_TRUE(r.next(step)) << c->describe();
      EXPECT_EQ(step.step, 10u * s);
      EXPECT_EQ(step.time, 3600.0 * s);
      const std::vector<FaceField> back = r.decode(step);
      ASSERT_EQ(back.size(), 3u);
      FaceField u = fields().u;
      for (double& v : u.data) v *= 1 + 0.1 * s;
      EXPECT_EQ(step.payloads[1], c->compress(u));
      EXPECT_EQ(back[1].data, c->decompress(c->compress(u)).data);
    }
    EXPECT_FALSE(r.next(step));
  }
}

TEST(CompressedStream, MissingAndForeignFilesAreNamed) {
  const std::string missing = temp_path("missing");
  std::filesystem::remove(missing);
  expect_error([&] { StreamReader r(missing); }, {missing.c_str(), "cannot open"});
  const std::string text = temp_path("text");
  spit(text, {'h', 'e', 'l', 'l', 'o', ',', ' ', 'w', 'o', 'r', 'l', 'd', '\n'});
  expect_error([&] { StreamReader r(text); }, {text.c_str(), "not a climate compressed stream"});
  const std::string empty = temp_path("empty");
  spit(empty, {});
  expect_error([&] { StreamReader r(empty); }, {empty.c_str(), "not a climate compressed stream"});
}

TEST(CompressedStream, TruncatedFilesAreNamedWhereTheyEnd) {
  const DctCompressor dct({8, 2, 64});
  const std::string path = write_three_steps(dct, "cut_source");
  const std::vector<char> whole = slurp(path);
  StreamReader full(path);
  const std::size_t header = full.header().bytes;
  StreamStep first;
  full.next(first);
  const std::string cut = temp_path("cut");
  // Inside the header: the reader refuses to open.
  spit(cut, std::vector<char>(whole.begin(), whole.begin() + header - 3));
  expect_error([&] { StreamReader r(cut); }, {cut.c_str(), "truncated", "header"});
  // Inside the second record's header, then inside its third payload: the first step reads.
  for (const std::size_t end : {header + first.bytes + 10, header + 2 * first.bytes - 5}) {
    spit(cut, std::vector<char>(whole.begin(), whole.begin() + static_cast<long>(end)));
    StreamReader r(cut);
    StreamStep step;
    ASSERT_TRUE(r.next(step));
    expect_error([&] { r.next(step); }, {cut.c_str(), "record 1", "truncated"});
  }
  spit(cut, std::vector<char>(whole.begin(), whole.begin() + header + 2 * first.bytes - 5));
  StreamReader r(cut);
  StreamStep step;
  r.next(step);
  expect_error([&] { r.next(step); }, {"field 'v'", "truncated"});
}

TEST(CompressedStream, CorruptFilesAreRefused) {
  const ZfpCompressor zfp({ZfpParams::Mode::rate, 4});
  const std::string path = write_three_steps(zfp, "corrupt_source");
  const std::vector<char> whole = slurp(path);
  const std::size_t header = StreamReader(path).header().bytes;
  const std::string bad = temp_path("corrupt");
  std::vector<char> b = whole;
  b[20] ^= 1;  // Ne: the header checksum catches it
  spit(bad, b);
  expect_error([&] { StreamReader r(bad); }, {bad.c_str(), "corrupt header", "checksum"});
  b = whole;
  b[8] = 2;  // version 2
  spit(bad, b);
  expect_error([&] { StreamReader r(bad); }, {bad.c_str(), "version 2", "knows version 1"});
  b = whole;
  b[whole.size() - 7] ^= 0x10;  // inside the last step's last payload (v)
  spit(bad, b);
  {
    StreamReader r(bad);
    StreamStep step;
    r.next(step), r.next(step);
    expect_error([&] { r.next(step); }, {bad.c_str(), "step 20", "field 'v'", "checksum"});
  }
  b = whole;
  b[header + 5] ^= 0x01;  // the first record's step number
  spit(bad, b);
  StreamReader r(bad);
  StreamStep step;
  expect_error([&] { r.next(step); }, {bad.c_str(), "record 0", "checksum"});
}

TEST(CompressedStream, WriterRefusesBadInput) {
  const DctCompressor dct({8, 2, 64});
  const std::string path = temp_path("writer");
  expect_error([&] { StreamWriter w(path, dct, 4, 3, {"h", "h"}); }, {"'h'", "repeated"});
  expect_error([&] { StreamWriter w(path, dct, 0, 3, {"h"}); }, {"(Ne, p) = (0, 3)"});
  StreamWriter w(path, dct, 4, 3, {"h", "u"});
  expect_error([&] { w.write(0, 0, {fields().h}); }, {"1 fields given", "names 2"});
  expect_error([&] { w.write(0, 0, {fields().h, FaceField(8)}); }, {"field 'u'", "face size 8"});
  const std::string dir = temp_path("no_such_dir") + "/x.czs";
  expect_error([&] { StreamWriter w2(dir, dct, 4, 3, {"h"}); }, {"x.czs", "cannot create"});
}

}  // namespace
}  // namespace climate
