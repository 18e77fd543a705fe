// Height bands (spatial parallelism's reads): the band arithmetic, Dataset::fetch_band of an
// in-memory tensor, the default and a Subset against cutting whole examples, and a DataLoader with
// DataLoaderOptions::height_band reading only the band unless its transform needs whole examples.
#include <atomic>

#include "exadnn/data/data_loader.h"
#include "exadnn/data/height_band.h"
#include "exadnn/data/subset.h"
#include "exadnn/data/tensor_dataset.h"
#include "exadnn/ops/concat.h"
#include "exadnn/ops/elementwise.h"
#include "exadnn/ops/factories.h"
#include "testing.h"

namespace exadnn::data {
namespace {

// Images [n, 2, 6, 3] of distinct values (f32), targets 0..n-1.
TensorDataset images(int64_t n) {
  Generator gen(7);
  return TensorDataset(randn({n, 2, 6, 3}, {}, &gen), arange(n, DType::i64));
}

void expect_same(const Tensor& a, const Tensor& b) {
  ASSERT_EQ(a.shape(), b.shape());
  ASSERT_EQ(a.dtype(), b.dtype());
  EXPECT_EQ(to_vector<float>(a.to(DType::f32)), to_vector<float>(b.to(DType::f32)));
}

TEST(HeightBand, SplitsTheHeightIntoEqualBands) {
  EXPECT_EQ(height_band({3, 8, 5}, 0, 4).begin, 0);
  EXPECT_EQ(height_band({3, 8, 5}, 2, 4).begin, 4);
  EXPECT_EQ(height_band({3, 8, 5}, 2, 4).end, 6);
  EXPECT_EQ(height_band({8, 5}, 1, 2).rows(), 4);  // [H, W] examples: the first axis
  EXPECT_EQ(band_shape({3, 8, 5}, {2, 4}), (Shape{3, 2, 5}));
  EXPECT_EXADNN_ERROR(height_band({1, 28, 28}, 0, 3), "examples of shape [1, 28, 28] have 28 rows",
                      "do not split into 3 equal bands");
  EXPECT_EXADNN_ERROR(height_band({28}, 0, 2), "at least 2 axes", "shape [28]");
  EXPECT_EXADNN_ERROR(height_band({1, 8, 8}, 2, 2), "band 2 of 2 does not exist");
}

TEST(HeightBand, TensorDatasetReadsTheBandOfEveryChannel) {
  const TensorDataset set = images(5);
  const std::vector<int64_t> idx{4, 0, 2};
  const HeightBand band{2, 5};
  Batch got = HeightBandView(std::make_shared<TensorDataset>(set), band).get_batch(idx);
  EXPECT_EQ(got.inputs.shape(), (Shape{3, 2, 3, 3}));
  const Batch whole = set.get_batch(idx);
  expect_same(got.inputs, cut_band(whole.inputs, band));
  expect_same(got.targets, whole.targets);
  // u8 images too (element size 1).
  const TensorDataset bytes(abs(mul(set.inputs(), full({1}, 10.0))).to(DType::u8), set.targets());
  Batch small = bytes.allocate_batch(3);
  small.inputs = empty({3, 2, 3, 3}, DType::u8);
  bytes.fetch_band(idx, band, small.inputs, small.targets);
  expect_same(small.inputs, cut_band(bytes.get_batch(idx).inputs, band));
}

// Implements fetch() only: fetch_band is the Dataset's default (whole examples, then the band).
class FetchOnly : public Dataset {
 public:
  explicit FetchOnly(TensorDataset set) : set_(std::move(set)) {}
  int64_t size() const override { return set_.size(); }
  Shape input_shape() const override { return set_.input_shape(); }
  DType input_dtype() const override { return set_.input_dtype(); }
  Shape target_shape() const override { return set_.target_shape(); }
  DType target_dtype() const override { return set_.target_dtype(); }
  void fetch(std::span<const int64_t> indices, const Tensor& inputs,
             const Tensor& targets) const override {
    set_.fetch(indices, inputs, targets);
  }

 private:
  TensorDataset set_;
};

TEST(HeightBand, DefaultAndSubsetGiveTheCutOfWholeExamples) {
  const auto set = std::make_shared<TensorDataset>(images(6));
  const std::vector<int64_t> idx{1, 5};
  const HeightBand band{4, 6};
  const Tensor want = cut_band(set->get_batch(idx).inputs, band);
  expect_same(HeightBandView(std::make_shared<FetchOnly>(*set), band).get_batch(idx).inputs, want);
  // Subset examples 0, 1 are the base's 1, 5.
  const auto subset = std::make_shared<Subset>(set, std::vector<int64_t>{1, 5, 3});
  expect_same(HeightBandView(subset, band).get_batch(std::vector<int64_t>{0, 1}).inputs, want);
}

TEST(HeightBand, RefusesRowsOutsideTheHeightAndWrongBatches) {
  const auto set = std::make_shared<TensorDataset>(images(2));
  EXPECT_EXADNN_ERROR(HeightBandView(set, {4, 7}), "rows [4, 7)", "shape [2, 6, 3]");
  EXPECT_EXADNN_ERROR(HeightBandView(set, {3, 3}), "rows [3, 3)");
  const std::vector<int64_t> idx{0};
  const Batch whole = set->allocate_batch(1);  // [1, 2, 6, 3]: not a band's shape
  EXPECT_EXADNN_ERROR(set->fetch_band(idx, {0, 3}, whole.inputs, whole.targets), "TensorDataset",
                      "shape [1, 2, 3, 3]");
}

// Counts the examples read whole (fetch) and as a band (fetch_band); either from the worker.
class CountingDataset : public TensorDataset {
 public:
  using TensorDataset::TensorDataset;
  void fetch(std::span<const int64_t> indices, const Tensor& inputs,
             const Tensor& targets) const override {
    whole += int64_t(indices.size());
    TensorDataset::fetch(indices, inputs, targets);
  }
  void fetch_band(std::span<const int64_t> indices, HeightBand band, const Tensor& inputs,
                  const Tensor& targets) const override {
    banded += int64_t(indices.size());
    TensorDataset::fetch_band(indices, band, inputs, targets);
  }
  mutable std::atomic<int64_t> whole{0}, banded{0};
};

// One epoch of `loader`'s inputs and targets, batches concatenated.
Batch epoch(DataLoader& loader) {
  std::vector<Tensor> x, y;
  for (const Batch& b : loader) {
    x.push_back(b.inputs);
    y.push_back(b.targets);
  }
  return {cat(x, 0), cat(y, 0)};
}

// The loader with band `part` of 2 against cutting the band from a whole-example loader's batches
// (same seed, shuffle, transform); returns the counting dataset the band loader read.
std::shared_ptr<CountingDataset> band_against_whole(std::shared_ptr<const Transform> transform,
                                                    int part) {
  const TensorDataset set = images(10);
  auto counted = std::make_shared<CountingDataset>(set.inputs(), set.targets());
  const auto options = DataLoaderOptions().batch_size(4).shuffle().seed(3).transform(transform);
  DataLoader whole(std::make_shared<TensorDataset>(set), options);
  DataLoader band(counted, DataLoaderOptions(options).height_band(part, 2));
  const Batch w = epoch(whole), b = epoch(band);
  EXPECT_EQ(b.inputs.shape(), (Shape{10, 2, 3, 3}));
  expect_same(b.inputs, cut_band(w.inputs, height_band(set.input_shape(), part, 2)));
  expect_same(b.targets, w.targets);
  EXPECT_EQ(band.dataset().input_shape(), (Shape{2, 6, 3}));  // the dataset as given
  return counted;
}

TEST(HeightBand, LoaderReadsOnlyTheBandWithoutATransformOrAPointwiseOne) {
  for (int part : {0, 1}) {
    EXPECT_EQ(band_against_whole(nullptr, part)->whole, 0);
    EXPECT_EQ(band_against_whole(nullptr, part)->banded, 10);
    const auto scaled = band_against_whole(std::make_shared<ToFloat>(0.5), part);
    EXPECT_EQ(scaled->whole, 0);
    EXPECT_EQ(scaled->banded, 10);
  }
}

TEST(HeightBand, LoaderReadsWholeExamplesForATransformThatNeedsThem) {
  // A random mirror per example: not pointwise, so whole examples are read and transformed, then
  // cut — the same values as the whole loader's band.
  const auto flip = std::make_shared<RandomHorizontalFlip>(0.5);
  EXPECT_FALSE(flip->pointwise());
  for (int part : {0, 1}) {
    const auto counted = band_against_whole(flip, part);
    EXPECT_EQ(counted->whole, 10);
    EXPECT_EQ(counted->banded, 0);
  }
  EXPECT_TRUE(Compose({std::make_shared<ToFloat>(), std::make_shared<ToFloat>()}).pointwise());
  EXPECT_FALSE(Compose({std::make_shared<ToFloat>(), flip}).pointwise());
  EXPECT_TRUE(Normalize({0.5}, {0.2}).pointwise());
  EXPECT_FALSE(Normalize({0.5, 0.1}, {0.2, 0.3}).pointwise());  // per channel: axis 1
}

// Hands out the whole examples of `set` in order: a stream that does not read bands.
class WholeStream : public BatchStream {
 public:
  explicit WholeStream(std::shared_ptr<const Dataset> set) : set_(std::move(set)) {}
  int64_t batches_per_epoch() const override { return 2; }
  void start_epoch(int64_t) override { next_ = 0; }
  std::optional<Batch> next() override {
    if (next_ == 2) return std::nullopt;
    const std::vector<int64_t> idx{2 * next_, 2 * next_ + 1};
    ++next_;
    return set_->get_batch(idx);
  }

 private:
  std::shared_ptr<const Dataset> set_;
  int64_t next_ = 0;
};

TEST(HeightBand, LoaderCutsTheBandFromAStreamsWholeExamples) {
  const auto set = std::make_shared<TensorDataset>(images(4));
  DataLoader loader(set, std::make_unique<WholeStream>(set),
                    DataLoaderOptions().batch_size(2).height_band(1, 3));
  const Batch b = epoch(loader);
  expect_same(b.inputs, cut_band(set->inputs(), {2, 4}));
}

TEST(HeightBand, LoaderRefusesAHeightTheBandsDoNotDivide) {
  const auto set = std::make_shared<TensorDataset>(images(4));
  EXPECT_EXADNN_ERROR(DataLoader(set, DataLoaderOptions().height_band(0, 4)),
                      "examples of shape [2, 6, 3] have 6 rows", "do not split into 4 equal bands");
}

}  // namespace
}  // namespace exadnn::data
