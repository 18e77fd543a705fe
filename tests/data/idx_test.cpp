// IDX reader: round trips of plain and gzip files the test writes, every error with its message,
// and the real Fashion-MNIST files when Debian's dataset-fashion-mnist is installed.
#include <cmath>
#include <cstring>
#include <filesystem>

#include "data_test_util.h"
#include "exadnn/data/data_loader.h"
#include "exadnn/data/idx.h"
#include "testing.h"

namespace exadnn::data {
namespace {

using exadnn::testing::idx_bytes;
using exadnn::testing::TempDir;
using exadnn::testing::values;

// 3 images of 2x4 with pixel value 10 n + k; labels 7, 0, 9.
std::vector<unsigned char> pixels() {
  std::vector<unsigned char> p;
  for (int n = 0; n < 3; ++n)
    for (int k = 0; k < 8; ++k)
      p.push_back(static_cast<unsigned char>(10 * n + k + 200 * (k == 7)));
  return p;
}

void write_split(const TempDir& dir, const std::string& prefix, bool gzip) {
  const auto images = idx_bytes(0x08, {3, 2, 4}, pixels());
  const auto labels = idx_bytes(0x08, {3}, {7, 0, 9});
  const std::string ext = gzip ? ".gz" : "";
  if (gzip) {
    testing::write_gzip(dir.file(prefix + "-images-idx3-ubyte" + ext), images);
    testing::write_gzip(dir.file(prefix + "-labels-idx1-ubyte" + ext), labels);
  } else {
    testing::write_bytes(dir.file(prefix + "-images-idx3-ubyte"), images);
    testing::write_bytes(dir.file(prefix + "-labels-idx1-ubyte"), labels);
  }
}

class IdxRoundTrip : public ::testing::TestWithParam<bool> {};

TEST_P(IdxRoundTrip, ImagesAndLabels) {
  TempDir dir;
  write_split(dir, "train", GetParam());
  const std::string ext = GetParam() ? ".gz" : "";
  const Tensor images = read_idx_images(dir.file("train-images-idx3-ubyte" + ext));
  EXPECT_EQ(images.dtype(), DType::u8);
  EXPECT_EQ(images.shape(), (Shape{3, 1, 2, 4}));
  const auto px = pixels();
  EXPECT_EQ(values(images), std::vector<double>(px.begin(), px.end()));
  const Tensor labels = read_idx_labels(dir.file("train-labels-idx1-ubyte" + ext));
  EXPECT_EQ(labels.dtype(), DType::i64);
  EXPECT_EQ(values(labels), (std::vector<double>{7, 0, 9}));
}

TEST_P(IdxRoundTrip, MnistSplitAsFloatDataset) {
  TempDir dir;
  write_split(dir, "t10k", GetParam());
  const TensorDataset ds = load_mnist(dir.path().string(), Split::test);
  EXPECT_EQ(ds.size(), 3);
  EXPECT_EQ(ds.input_shape(), (Shape{1, 2, 4}));
  EXPECT_EQ(ds.input_dtype(), DType::f32);
  EXPECT_EQ(ds.target_dtype(), DType::i64);
  const auto x = values(ds.inputs());
  const auto px = pixels();
  for (size_t i = 0; i < px.size(); ++i) EXPECT_EQ(static_cast<float>(x[i]), px[i] / 255.0f);
  EXPECT_EQ(values(ds.targets()), (std::vector<double>{7, 0, 9}));
  EXPECT_EXADNN_ERROR(load_mnist(dir.path().string(), Split::train), "no train-images-idx3-ubyte",
                      dir.path().string());
}

// Every batch of a shuffled loader over u8 pixels with ToFloat() equals, bit for bit, the batch
// of the same loader over the f32 dataset.
void expect_same_batches(const std::string& dir, Split split, int64_t batch_size) {
  const TensorDataset f32 = load_mnist(dir, split);
  const TensorDataset u8 = load_mnist(dir, split, Pixels::u8);
  EXPECT_EQ(u8.input_dtype(), DType::u8);
  EXPECT_EQ(u8.input_shape(), f32.input_shape());
  EXPECT_EQ(u8.inputs().nbytes() * 4, f32.inputs().nbytes());
  const auto options = DataLoaderOptions().batch_size(batch_size).shuffle(true).seed(3);
  DataLoader a(f32, options);
  DataLoader b(u8, DataLoaderOptions(options).transform(std::make_shared<ToFloat>()));
  for (int epoch = 0; epoch < 2; ++epoch) {
    int64_t batches = 0;
    while (auto x = a.next()) {
      const auto y = b.next();
      ASSERT_TRUE(y.has_value());
      ASSERT_EQ(y->inputs.dtype(), DType::f32);
      ASSERT_EQ(y->inputs.shape(), x->inputs.shape());
      ASSERT_EQ(std::memcmp(y->inputs.data_ptr(), x->inputs.data_ptr(), x->inputs.nbytes()), 0)
          << "epoch " << epoch << " batch " << batches;
      ASSERT_EQ(values(y->targets), values(x->targets));
      ++batches;
    }
    EXPECT_FALSE(b.next().has_value());
    EXPECT_EQ(batches, a.batches_per_epoch());
  }
}

TEST_P(IdxRoundTrip, U8PixelsWithToFloatGiveTheF32Batches) {
  TempDir dir;
  write_split(dir, "train", GetParam());
  expect_same_batches(dir.path().string(), Split::train, 2);
}

INSTANTIATE_TEST_SUITE_P(, IdxRoundTrip, ::testing::Values(false, true),
                         [](const auto& info) { return info.param ? "gzip" : "plain"; });

TEST(Idx, GenericTypesAreConvertedFromBigEndian) {
  TempDir dir;
  // i16 [2, 2]: 1, -2, 300, -32768
  testing::write_bytes(dir.file("i16.idx"),
                       idx_bytes(0x0B, {2, 2}, {0x00, 0x01, 0xff, 0xfe, 0x01, 0x2c, 0x80, 0x00}));
  const Tensor a = read_idx(dir.file("i16.idx"));
  EXPECT_EQ(a.dtype(), DType::i32);
  EXPECT_EQ(a.shape(), (Shape{2, 2}));
  EXPECT_EQ(values(a), (std::vector<double>{1, -2, 300, -32768}));
  // f32 [2]: 1.5, -2.0 ; f64 [1]: 0.1 ; i8 [3]: -1, 5, -128 ; i32 [1]: 70000
  testing::write_gzip(dir.file("f32.idx.gz"),
                      idx_bytes(0x0D, {2}, {0x3f, 0xc0, 0, 0, 0xc0, 0x00, 0, 0}));
  EXPECT_EQ(values(read_idx(dir.file("f32.idx.gz"))), (std::vector<double>{1.5, -2.0}));
  testing::write_bytes(dir.file("f64.idx"),
                       idx_bytes(0x0E, {1}, {0x3f, 0xb9, 0x99, 0x99, 0x99, 0x99, 0x99, 0x9a}));
  const Tensor d = read_idx(dir.file("f64.idx"));
  EXPECT_EQ(d.dtype(), DType::f64);
  EXPECT_EQ(values(d), (std::vector<double>{0.1}));
  testing::write_bytes(dir.file("i8.idx"), idx_bytes(0x09, {3}, {0xff, 0x05, 0x80}));
  EXPECT_EQ(values(read_idx(dir.file("i8.idx"))), (std::vector<double>{-1, 5, -128}));
  testing::write_bytes(dir.file("i32.idx"), idx_bytes(0x0C, {1}, {0x00, 0x01, 0x11, 0x70}));
  EXPECT_EQ(values(read_idx(dir.file("i32.idx"))), (std::vector<double>{70000}));
}

TEST(Idx, ConcatenatedGzipMembersAreOneStream) {
  TempDir dir;
  const auto bytes = idx_bytes(0x08, {4}, {1, 2, 3, 4});
  testing::write_gzip(dir.file("a.gz"), {bytes.begin(), bytes.begin() + 7});
  testing::write_gzip(dir.file("b.gz"), {bytes.begin() + 7, bytes.end()});
  auto joined = testing::read_bytes(dir.file("a.gz"));
  const auto second = testing::read_bytes(dir.file("b.gz"));
  joined.insert(joined.end(), second.begin(), second.end());
  testing::write_bytes(dir.file("labels.gz"), joined);
  EXPECT_EQ(values(read_idx_labels(dir.file("labels.gz"))), (std::vector<double>{1, 2, 3, 4}));
}

// --- errors ----------------------------------------------------------------------------------

TEST(IdxErrors, TruncatedPixels) {
  TempDir dir;
  auto bytes = idx_bytes(0x08, {60000, 28, 28}, std::vector<unsigned char>(1234, 7));
  const std::string plain = dir.file("train-images-idx3-ubyte");
  testing::write_bytes(plain, bytes);
  EXPECT_EXADNN_ERROR(read_idx_images(plain), plain,
                      ": truncated: header promises 60000 images of 28x28 but the file holds 1234 "
                      "bytes of pixels");
  // A gzip file cut short: the stream ends early, and the message says so.
  const std::string gz = dir.file("train-images-idx3-ubyte.gz");
  testing::write_gzip(gz, idx_bytes(0x08, {3, 28, 28}, std::vector<unsigned char>(3 * 784, 1)));
  auto compressed = testing::read_bytes(gz);
  compressed.resize(compressed.size() / 2);
  testing::write_bytes(gz, compressed);
  EXPECT_EXADNN_ERROR(read_idx_images(gz), gz, "truncated: header promises 3 images of 28x28",
                      "gzip stream ends early");
}

TEST(IdxErrors, TruncatedLabelsAndHeader) {
  TempDir dir;
  const std::string labels = dir.file("labels");
  testing::write_bytes(labels, idx_bytes(0x08, {10}, {1, 2, 3}));
  EXPECT_EXADNN_ERROR(read_idx_labels(labels), labels,
                      "truncated: header promises 10 labels but the file holds 3 bytes of labels");
  const std::string header = dir.file("header");
  testing::write_bytes(header, {0, 0, 8, 3, 0, 0});
  EXPECT_EXADNN_ERROR(read_idx_images(header), header,
                      "truncated: the file ends inside the IDX header (6 of 16 bytes)");
  const std::string empty_file = dir.file("empty");
  testing::write_bytes(empty_file, {});
  EXPECT_EXADNN_ERROR(read_idx(empty_file), empty_file, "(0 of 4 magic bytes)");
}

TEST(IdxErrors, GzipTrailerMissingOrCorrupt) {
  TempDir dir;
  const auto bytes = idx_bytes(0x08, {4}, {1, 2, 3, 4});
  const std::string gz = dir.file("labels.gz");
  testing::write_gzip(gz, bytes);
  const auto good = testing::read_bytes(gz);
  // Without its 8-byte trailer (CRC and size) the data is complete but the stream is not.
  testing::write_bytes(gz, {good.begin(), good.end() - 8});
  EXPECT_EXADNN_ERROR(read_idx_labels(gz), gz, "truncated", "gzip");
  // A wrong CRC is corruption.
  auto bad_crc = good;
  bad_crc[bad_crc.size() - 8] ^= 0xff;
  testing::write_bytes(gz, bad_crc);
  EXPECT_EXADNN_ERROR(read_idx_labels(gz), gz, "corrupt gzip data", "incorrect data check");
  // Garbage in the deflate stream.
  auto garbage = good;
  for (size_t i = 10; i < garbage.size() - 8; ++i) garbage[i] = 0xff;
  testing::write_bytes(gz, garbage);
  EXPECT_EXADNN_ERROR(read_idx_labels(gz), gz, "corrupt gzip data");
}

TEST(IdxErrors, TrailingBytes) {
  TempDir dir;
  const std::string path = dir.file("labels");
  testing::write_bytes(path, idx_bytes(0x08, {2}, {1, 2, 3, 4, 5}));
  EXPECT_EXADNN_ERROR(read_idx_labels(path), path,
                      "corrupt: 3 bytes follow the data the header promises (2 labels)");
}

TEST(IdxErrors, WrongMagicNumber) {
  TempDir dir;
  const std::string labels = dir.file("train-labels-idx1-ubyte");
  testing::write_bytes(labels, idx_bytes(0x08, {2}, {1, 2}));
  EXPECT_EXADNN_ERROR(read_idx_images(labels), labels,
                      "wrong magic number 0x00000801 (IDX u8 labels, 1 dim): expected 0x00000803 "
                      "(IDX u8 images, 3 dims)");
  const std::string images = dir.file("images");
  testing::write_bytes(images, idx_bytes(0x08, {1, 1, 1}, {0}));
  EXPECT_EXADNN_ERROR(read_idx_labels(images), images, "wrong magic number 0x00000803",
                      "expected 0x00000801");
  const std::string text = dir.file("notes.txt");
  testing::write_text(text, "hello, world");
  EXPECT_EXADNN_ERROR(read_idx_images(text), text, "wrong magic number 0x68656c6c",
                      "not an IDX header");
  EXPECT_EXADNN_ERROR(read_idx(text), text, "wrong magic number 0x68656c6c",
                      "first two bytes must be zero");
  const std::string code = dir.file("code");
  testing::write_bytes(code, {0, 0, 0x0a, 1, 0, 0, 0, 0});
  EXPECT_EXADNN_ERROR(read_idx(code), code, "unknown IDX type code 0a");
}

TEST(IdxErrors, LabelCountMismatch) {
  TempDir dir;
  const std::string images = dir.file("images"), labels = dir.file("labels");
  testing::write_bytes(images, idx_bytes(0x08, {3, 2, 2}, std::vector<unsigned char>(12, 0)));
  testing::write_bytes(labels, idx_bytes(0x08, {2}, {1, 2}));
  EXPECT_EXADNN_ERROR(load_idx_dataset(images, labels), labels,
                      "label count 2 does not match the image count 3 of " + images);
}

TEST(IdxErrors, MissingFile) {
  EXPECT_EXADNN_ERROR(read_idx("/nonexistent/train-images-idx3-ubyte.gz"),
                      "/nonexistent/train-images-idx3-ubyte.gz: cannot open");
}

// The defect: NaN and infinity in a float IDX file were read as data.
TEST(IdxErrors, NonFiniteFloats) {
  TempDir dir;
  const std::string path = dir.file("f32.idx");
  // f32 [2, 2]: 1.0, 2.0, 3.0, NaN (0x7fc00000)
  testing::write_bytes(
      path, idx_bytes(0x0D, {2, 2},
                      {0x3f, 0x80, 0, 0, 0x40, 0, 0, 0, 0x40, 0x40, 0, 0, 0x7f, 0xc0, 0, 0}));
  EXPECT_EXADNN_ERROR(read_idx(path), path, "the IDX data holds nan at index [1, 1]");
  EXPECT_TRUE(std::isnan(values(read_idx(path, NonFinite::allow))[3]));
  // f64 [1]: -infinity (0xfff0000000000000)
  testing::write_bytes(path, idx_bytes(0x0E, {1}, {0xff, 0xf0, 0, 0, 0, 0, 0, 0}));
  EXPECT_EXADNN_ERROR(read_idx(path), path, "holds -inf at index [0]");
}

// The defect: a header promising 0 images made a dataset of 0 examples.
TEST(IdxErrors, NoExamples) {
  TempDir dir;
  const std::string images = dir.file("images"), labels = dir.file("labels");
  testing::write_bytes(images, idx_bytes(0x08, {0, 28, 28}, {}));
  testing::write_bytes(labels, idx_bytes(0x08, {0}, {}));
  EXPECT_EXADNN_ERROR(load_idx_dataset(images, labels), images,
                      "no examples: the header promises 0 images");
}

// --- the real files -----------------------------------------------------------------------------

constexpr const char* kFashionDir = "/usr/share/datasets/fashion-mnist";

TEST(FashionMnist, RealFiles) {
  if (!std::filesystem::exists(std::string(kFashionDir) + "/train-images-idx3-ubyte.gz"))
    GTEST_SKIP() << kFashionDir << " is missing: install Debian's dataset-fashion-mnist "
                 << "(scripts/setup.sh) to run this test";
  for (const auto& [split, count] :
       {std::pair{Split::train, 60000}, std::pair{Split::test, 10000}}) {
    const TensorDataset ds = load_mnist(kFashionDir, split);
    EXPECT_EQ(ds.size(), count);
    EXPECT_EQ(ds.input_shape(), (Shape{1, 28, 28}));
    const auto labels = to_vector<int64_t>(ds.targets());
    std::vector<int64_t> per_class(10, 0);
    for (int64_t l : labels) {
      ASSERT_GE(l, 0);
      ASSERT_LE(l, 9);
      ++per_class[static_cast<size_t>(l)];
    }
    for (int64_t c : per_class) EXPECT_EQ(c, count / 10);  // Fashion-MNIST is balanced
    const float* x = ds.inputs().data<float>();
    float lo = 1, hi = 0;
    for (int64_t i = 0; i < ds.inputs().numel(); ++i)
      lo = std::min(lo, x[i]), hi = std::max(hi, x[i]);
    EXPECT_EQ(lo, 0.0f);
    EXPECT_EQ(hi, 1.0f);
  }
  expect_same_batches(kFashionDir, Split::test, 128);
}

}  // namespace
}  // namespace exadnn::data
