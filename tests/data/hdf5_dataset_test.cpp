// Hdf5Dataset (examples read on demand): batches in any order, with repeats, equal to the same
// file loaded whole; bands read from the file equal to the whole examples' bands; a loader reading
// bands; integer pixels read as f32; and the errors (a missing dataset, differing example counts,
// NaN in a batch named when it is read).
#include <cmath>
#include <limits>

#include "data_test_util.h"
#include "exadnn/data/data_loader.h"
#include "exadnn/data/hdf5.h"
#include "exadnn/data/hdf5_dataset.h"
#include "exadnn/data/height_band.h"
#include "exadnn/ops/concat.h"
#include "exadnn/ops/factories.h"
#include "testing.h"

namespace exadnn::data {
namespace {

using exadnn::testing::TempDir;

void expect_same(const Tensor& a, const Tensor& b) {
  ASSERT_EQ(a.shape(), b.shape());
  ASSERT_EQ(a.dtype(), b.dtype());
  EXPECT_EQ(to_vector<float>(a.to(DType::f32)), to_vector<float>(b.to(DType::f32)));
}

// x f32 [10, 2, 6, 3] of distinct values, y i32 [10] (read back as i64), pixels u8 [10, 1, 4, 4].
std::string write_set(const TempDir& dir) {
  const std::string path = dir.file("set.h5");
  Generator gen(5);
  Tensor pixels = empty({10, 1, 4, 4}, DType::u8);
  for (int64_t i = 0; i < pixels.numel(); ++i) pixels.data<uint8_t>()[i] = uint8_t(i * 7 % 251);
  write_hdf5(path, {{"x", randn({10, 2, 6, 3}, {}, &gen)},
                    {"y", arange(10, DType::i64).to(DType::i32)},
                    {"pixels", pixels},
                    {"short", arange(9, DType::i64)}});
  return path;
}

TEST(Hdf5Dataset, BatchesInAnyOrderEqualTheWholeFile) {
  TempDir dir;
  const std::string path = write_set(dir);
  const Hdf5Dataset lazy(path, "x", "y");
  const TensorDataset whole = load_hdf5_dataset(path, "x", "y");
  EXPECT_EQ(lazy.size(), 10);
  EXPECT_EQ(lazy.input_shape(), (Shape{2, 6, 3}));
  EXPECT_EQ(lazy.target_dtype(), DType::i64);
  for (const std::vector<int64_t>& idx : std::vector<std::vector<int64_t>>{
           {0, 1, 2, 3}, {7, 2, 9, 0}, {4, 4, 1, 4}, {9}, {3, 8, 5, 6, 1, 0, 2, 7, 9, 4}}) {
    const Batch a = lazy.get_batch(idx), b = whole.get_batch(idx);
    expect_same(a.inputs, b.inputs);
    expect_same(a.targets, b.targets);
    expect_same(lazy.get_targets(idx), b.targets);
  }
}

TEST(Hdf5Dataset, BandsAreReadFromTheFile) {
  TempDir dir;
  const std::string path = write_set(dir);
  const auto lazy = std::make_shared<Hdf5Dataset>(path, "x", "y");
  const TensorDataset whole = load_hdf5_dataset(path, "x", "y");
  const std::vector<int64_t> idx{6, 1, 1, 8};
  for (int part : {0, 1, 2}) {
    const HeightBand band = height_band(lazy->input_shape(), part, 3);
    Batch b = lazy->allocate_batch(4);
    Shape shape{4};
    for (int64_t d : band_shape(lazy->input_shape(), band)) shape.push_back(d);
    b.inputs = empty(shape, DType::f32);
    lazy->fetch_band(idx, band, b.inputs, b.targets);
    expect_same(b.inputs, cut_band(whole.get_batch(idx).inputs, band));
  }
  // A loader reading band 1 of 2 of every example, shuffled, against the whole loader's band.
  const auto options = DataLoaderOptions().batch_size(3).shuffle().seed(4);
  DataLoader band_loader(lazy, DataLoaderOptions(options).height_band(1, 2));
  DataLoader whole_loader(std::make_shared<TensorDataset>(whole), options);
  std::vector<Tensor> got, want;
  for (const Batch& b : band_loader) got.push_back(b.inputs);
  for (const Batch& b : whole_loader) want.push_back(b.inputs);
  expect_same(cat(got, 0), cut_band(cat(want, 0), height_band(lazy->input_shape(), 1, 2)));
}

TEST(Hdf5Dataset, IntegerPixelsReadAsFloats) {
  TempDir dir;
  const std::string path = write_set(dir);
  const Hdf5Dataset lazy(path, "pixels", "y");
  EXPECT_EQ(lazy.input_dtype(), DType::f32);
  const Batch b = lazy.get_batch(std::vector<int64_t>{2, 0});
  expect_same(b.inputs,
              load_hdf5_dataset(path, "pixels", "y").get_batch(std::vector<int64_t>{2, 0}).inputs);
  EXPECT_EQ(b.inputs.data<float>()[1], float((2 * 16 + 1) * 7 % 251));
}

TEST(Hdf5Dataset, ErrorsNameTheFileAndTheDataset) {
  TempDir dir;
  const std::string path = write_set(dir);
  EXPECT_EXADNN_ERROR(Hdf5Dataset(path, "nope", "y"), "no dataset named 'nope'", "set.h5");
  EXPECT_EXADNN_ERROR(Hdf5Dataset(path, "x", "short"), "'short' holds 9 targets",
                      "'x' holds 10 examples");
  // A NaN in the file is found in the batch that reads it, named with the file and dataset.
  Tensor x = zeros({3, 2, 2});
  x.data<float>()[5] = std::numeric_limits<float>::quiet_NaN();
  const std::string bad = dir.file("bad.h5");
  write_hdf5(bad, {{"x", x}, {"y", arange(3, DType::i64)}});
  const Hdf5Dataset lazy(bad, "x", "y");
  EXPECT_NO_THROW(lazy.get_batch(std::vector<int64_t>{0, 2}));
  EXPECT_EXADNN_ERROR(lazy.get_batch(std::vector<int64_t>{1}), "bad.h5", "dataset 'x'");
}

}  // namespace
}  // namespace exadnn::data
