// TensorDataset and Subset: shapes, row copies, index and batch checks.
#include <numeric>

#include "exadnn/data/subset.h"
#include "exadnn/data/tensor_dataset.h"
#include "testing.h"

namespace exadnn::data {
namespace {

using exadnn::testing::values;

// inputs [5, 2, 3] with value 100 * example + element; targets [5] = example * 10.
TensorDataset make_dataset() {
  std::vector<float> x(5 * 6);
  for (int n = 0; n < 5; ++n)
    for (int e = 0; e < 6; ++e) x[n * 6 + e] = static_cast<float>(100 * n + e);
  return TensorDataset(from_vector(x, {5, 2, 3}),
                       from_vector(std::vector<int64_t>{0, 10, 20, 30, 40}));
}

TEST(TensorDataset, ReportsShapesAndDtypes) {
  const TensorDataset ds = make_dataset();
  EXPECT_EQ(ds.size(), 5);
  EXPECT_EQ(ds.input_shape(), (Shape{2, 3}));
  EXPECT_EQ(ds.target_shape(), Shape{});
  EXPECT_EQ(ds.input_dtype(), DType::f32);
  EXPECT_EQ(ds.target_dtype(), DType::i64);
}

TEST(TensorDataset, GetBatchCopiesRowsInIndexOrder) {
  const TensorDataset ds = make_dataset();
  const std::vector<int64_t> idx = {3, 0, 1, 2, 4, 3};  // a run (0, 1, 2) and a repeat
  const Batch b = ds.get_batch(idx);
  ASSERT_EQ(b.inputs.shape(), (Shape{6, 2, 3}));
  ASSERT_EQ(b.targets.shape(), (Shape{6}));
  EXPECT_EQ(b.size(), 6);
  const auto x = values(b.inputs);
  const auto y = values(b.targets);
  for (size_t i = 0; i < idx.size(); ++i) {
    EXPECT_EQ(y[i], 10.0 * static_cast<double>(idx[i]));
    for (int e = 0; e < 6; ++e) EXPECT_EQ(x[i * 6 + e], 100.0 * static_cast<double>(idx[i]) + e);
  }
  EXPECT_FALSE(b.inputs.shares_storage_with(ds.inputs()));
}

TEST(TensorDataset, MultiDimensionalTargetsAndStridedInputs) {
  // A transposed input is packed on construction; targets [N, 2].
  const Tensor x = from_vector(std::vector<double>{0, 1, 2, 3, 4, 5}, {2, 3}).t();  // [3, 2]
  const Tensor y = from_vector(std::vector<float>{1, 2, 3, 4, 5, 6}, {3, 2});
  const TensorDataset ds(x, y);
  EXPECT_EQ(ds.target_shape(), (Shape{2}));
  const Batch b = ds.get_batch(std::vector<int64_t>{2, 0});
  EXPECT_EQ(values(b.inputs), (std::vector<double>{2, 5, 0, 3}));
  EXPECT_EQ(values(b.targets), (std::vector<double>{5, 6, 1, 2}));
  EXPECT_EQ(values(ds.get(1).inputs), (std::vector<double>{1, 4}));
}

TEST(TensorDataset, Errors) {
  EXPECT_EXADNN_ERROR(TensorDataset(zeros({4, 2}), zeros({3})), "TensorDataset", "4 examples",
                      "hold 3");
  EXPECT_EXADNN_ERROR(TensorDataset(scalar_tensor(1.0), zeros({1})), "leading example axis");
  const TensorDataset ds = make_dataset();
  EXPECT_EXADNN_ERROR(ds.get_batch(std::vector<int64_t>{1, 5}), "index 5 is out of range",
                      "5 examples");
  EXPECT_EXADNN_ERROR(ds.get(-1), "index -1");
  Batch wrong = ds.allocate_batch(2);
  EXPECT_EXADNN_ERROR(ds.fetch(std::vector<int64_t>{0, 1, 2}, wrong.inputs, wrong.targets),
                      "inputs batch must be", "[3, 2, 3]");
  EXPECT_EXADNN_ERROR(ds.fetch(std::vector<int64_t>{0, 1}, wrong.inputs, zeros({2})),
                      "targets batch must be", "i64");
}

TEST(Subset, RenumbersAndMapsIndices) {
  auto base = std::make_shared<TensorDataset>(make_dataset());
  const Subset sub(base, {4, 1});
  EXPECT_EQ(sub.size(), 2);
  EXPECT_EQ(sub.input_shape(), (Shape{2, 3}));
  EXPECT_EQ(values(sub.get_batch(std::vector<int64_t>{1, 0, 1}).targets),
            (std::vector<double>{10, 40, 10}));
  const Subset tail = Subset::range(base, 3, 2);
  EXPECT_EQ(values(tail.get_batch(std::vector<int64_t>{0, 1}).targets),
            (std::vector<double>{30, 40}));
  EXPECT_EXADNN_ERROR(Subset(base, {0, 7}), "Subset", "index 7");
  EXPECT_EXADNN_ERROR(Subset::range(base, 4, 2), "range [4, 6)");
  EXPECT_EXADNN_ERROR(sub.get(2), "index 2 is out of range", "2 examples");
}

// Label scans (class checks, class weights) read targets only: no input rows are copied, so a
// scan of a large image set allocates nothing the size of its images (ResNet-18's 2 048 images
// of 3 x 64 x 64 made a 100 MB batch that stayed in the allocator's cache).
TEST(TensorDataset, GetTargetsCopiesTargetsOnly) {
  const TensorDataset big(zeros({256, 4096}), arange(0, 256).to(DType::i64));  // 4 MiB of inputs
  std::vector<int64_t> all(256);
  std::iota(all.begin(), all.end(), 0);
  MemoryManager& mm = MemoryManager::instance();
  mm.reset_peak(MemoryKind::host);
  const size_t before = mm.stats(MemoryKind::host).bytes_in_use;
  const Tensor labels = big.get_targets(all);
  EXPECT_LT(mm.stats(MemoryKind::host).peak_bytes - before, size_t{64} << 10);  // 2 KiB of labels
  EXPECT_EQ(values(labels)[255], 255.0);
  auto base = std::make_shared<TensorDataset>(make_dataset());
  const Tensor t = base->get_targets(std::vector<int64_t>{3, 0, 4});
  EXPECT_EQ(t.shape(), (Shape{3}));
  EXPECT_EQ(values(t), (std::vector<double>{30, 0, 40}));
  const Subset sub(base, {4, 1});
  EXPECT_EQ(values(sub.get_targets(std::vector<int64_t>{1, 0})), (std::vector<double>{10, 40}));
  EXPECT_EXADNN_ERROR(base->get_targets(std::vector<int64_t>{5}), "index 5 is out of range");
  EXPECT_EXADNN_ERROR(sub.get_targets(std::vector<int64_t>{2}), "index 2 is out of range");
}

}  // namespace
}  // namespace exadnn::data
