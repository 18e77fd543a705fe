// DataLoader: coverage of each epoch, seeded reshuffling, drop_last, prefetch equivalence,
// shutdown mid-epoch, and exceptions crossing from the worker thread to the consumer.
#include <algorithm>
#include <atomic>
#include <chrono>
#include <numeric>
#include <set>
#include <thread>

#include "exadnn/data/data_loader.h"
#include "exadnn/data/tensor_dataset.h"
#include "testing.h"

namespace exadnn::data {
namespace {

using exadnn::testing::values;

// Example i has input [i, -i] (i64) and target i.
std::shared_ptr<TensorDataset> identity_dataset(int64_t n) {
  std::vector<int64_t> x, y;
  for (int64_t i = 0; i < n; ++i) {
    x.push_back(i);
    x.push_back(-i);
    y.push_back(i);
  }
  return std::make_shared<TensorDataset>(from_vector(x, {n, 2}), from_vector(y, {n}));
}

std::vector<int64_t> targets_of(const Batch& b) {
  return to_vector<int64_t>(b.targets);
}

// Every batch's targets, in order, for one epoch.
std::vector<std::vector<int64_t>> run_epoch(DataLoader& loader) {
  std::vector<std::vector<int64_t>> out;
  for (const Batch& b : loader) {
    const auto t = targets_of(b);
    const auto x = to_vector<int64_t>(b.inputs);
    EXPECT_EQ(b.inputs.shape(), (Shape{b.size(), 2}));
    for (size_t i = 0; i < t.size(); ++i) {  // inputs travel with their targets
      EXPECT_EQ(x[2 * i], t[i]);
      EXPECT_EQ(x[2 * i + 1], -t[i]);
    }
    out.push_back(t);
  }
  return out;
}

std::vector<int64_t> flatten(const std::vector<std::vector<int64_t>>& batches) {
  std::vector<int64_t> all;
  for (const auto& b : batches) all.insert(all.end(), b.begin(), b.end());
  return all;
}

class DataLoaderPrefetch : public ::testing::TestWithParam<int64_t> {};

TEST_P(DataLoaderPrefetch, EveryIndexExactlyOncePerEpoch) {
  DataLoader loader(identity_dataset(103),
                    DataLoaderOptions().batch_size(10).shuffle().seed(7).prefetch(GetParam()));
  EXPECT_EQ(loader.batches_per_epoch(), 11);
  for (int epoch = 0; epoch < 3; ++epoch) {
    const auto batches = run_epoch(loader);
    EXPECT_EQ(loader.epoch(), epoch);
    ASSERT_EQ(batches.size(), 11u);
    for (size_t i = 0; i + 1 < batches.size(); ++i) EXPECT_EQ(batches[i].size(), 10u);
    EXPECT_EQ(batches.back().size(), 3u);
    auto all = flatten(batches);
    std::sort(all.begin(), all.end());
    std::vector<int64_t> expected(103);
    std::iota(expected.begin(), expected.end(), 0);
    EXPECT_EQ(all, expected);
  }
}

TEST_P(DataLoaderPrefetch, UnshuffledIsInOrder) {
  DataLoader loader(identity_dataset(7), DataLoaderOptions().batch_size(3).prefetch(GetParam()));
  EXPECT_EQ(run_epoch(loader), (std::vector<std::vector<int64_t>>{{0, 1, 2}, {3, 4, 5}, {6}}));
}

TEST_P(DataLoaderPrefetch, DropLast) {
  DataLoader loader(identity_dataset(10),
                    DataLoaderOptions().batch_size(4).drop_last().shuffle().prefetch(GetParam()));
  EXPECT_EQ(loader.batches_per_epoch(), 2);
  const auto batches = run_epoch(loader);
  ASSERT_EQ(batches.size(), 2u);
  EXPECT_EQ(batches[0].size(), 4u);
  EXPECT_EQ(batches[1].size(), 4u);
  // Fewer examples than one batch: no batches at all.
  DataLoader tiny(identity_dataset(3), DataLoaderOptions().batch_size(4).drop_last());
  EXPECT_EQ(tiny.batches_per_epoch(), 0);
  EXPECT_TRUE(run_epoch(tiny).empty());
}

TEST_P(DataLoaderPrefetch, NextReturnsNulloptOncePerEpoch) {
  DataLoader loader(identity_dataset(5), DataLoaderOptions().batch_size(2).prefetch(GetParam()));
  for (int epoch = 0; epoch < 2; ++epoch) {
    int count = 0;
    while (auto b = loader.next()) ++count;
    EXPECT_EQ(count, 3);
    EXPECT_EQ(loader.epoch(), epoch);
  }
}

INSTANTIATE_TEST_SUITE_P(, DataLoaderPrefetch, ::testing::Values(0, 1, 3),
                         [](const auto& info) { return "prefetch" + std::to_string(info.param); });

TEST(DataLoader, ShuffleIsReproducibleAndDiffersBetweenEpochs) {
  const auto ds = identity_dataset(50);
  const auto opts = DataLoaderOptions().batch_size(8).shuffle().seed(42);
  DataLoader a(ds, opts), b(ds, opts), c(ds, DataLoaderOptions(opts).seed(43));
  const auto a0 = flatten(run_epoch(a)), a1 = flatten(run_epoch(a));
  const auto b0 = flatten(run_epoch(b)), b1 = flatten(run_epoch(b));
  const auto c0 = flatten(run_epoch(c));
  EXPECT_EQ(a0, b0);
  EXPECT_EQ(a1, b1);
  EXPECT_NE(a0, a1);
  EXPECT_NE(a0, c0);
  std::vector<int64_t> in_order(50);
  std::iota(in_order.begin(), in_order.end(), 0);
  EXPECT_NE(a0, in_order);
  // The order is a function of (seed, epoch): epoch_order and set_epoch agree with iteration.
  EXPECT_EQ(a.epoch_order(1), a1);
  DataLoader resumed(ds, opts);
  resumed.set_epoch(1);
  EXPECT_EQ(flatten(run_epoch(resumed)), a1);
  EXPECT_EQ(resumed.epoch(), 1);
}

TEST(DataLoader, PrefetchProducesTheSameBatchesAsNoPrefetch) {
  const auto ds = identity_dataset(37);
  // A transform with randomness: results depend on (seed, epoch, batch) only.
  struct AddNoise : Transform {
    Tensor apply(const Tensor& x, Generator& gen) const override {
      return x.to(DType::f64) + rand(x.shape(), DType::f64, &gen);
    }
  };
  const auto opts =
      DataLoaderOptions().batch_size(5).shuffle().seed(3).transform(std::make_shared<AddNoise>());
  DataLoader sync(ds, DataLoaderOptions(opts).prefetch(0));
  DataLoader async(ds, DataLoaderOptions(opts).prefetch(4));
  for (int epoch = 0; epoch < 2; ++epoch) {
    std::vector<std::vector<double>> xs, ys;
    for (const Batch& b : sync) {
      xs.push_back(values(b.inputs));
      ys.push_back(values(b.targets));
    }
    size_t i = 0;
    for (const Batch& b : async) {
      ASSERT_LT(i, xs.size());
      EXPECT_EQ(values(b.inputs), xs[i]);
      EXPECT_EQ(values(b.targets), ys[i]);
      ++i;
    }
    EXPECT_EQ(i, xs.size());
  }
}

TEST(DataLoader, AbandonedEpochRestartsCleanly) {
  DataLoader loader(identity_dataset(20), DataLoaderOptions().batch_size(3).shuffle().seed(1));
  for (const Batch& b : loader) {  // epoch 0, abandoned after one batch
    (void)b;
    break;
  }
  const auto e1 = flatten(run_epoch(loader));  // begin() starts epoch 1 from its first batch
  EXPECT_EQ(loader.epoch(), 1);
  EXPECT_EQ(e1, loader.epoch_order(1));
}

// Fetch sleeps, so the worker is busy (and batches are queued) when the loader dies.
class SlowDataset : public TensorDataset {
 public:
  using TensorDataset::TensorDataset;
  void fetch(std::span<const int64_t> indices, const Tensor& inputs,
             const Tensor& targets) const override {
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
    TensorDataset::fetch(indices, inputs, targets);
  }
};

TEST(DataLoader, DestroyedMidEpochJoinsWorkerAndFreesBatches) {
  const auto ident = identity_dataset(1000);
  const auto ds = std::make_shared<SlowDataset>(ident->inputs(), ident->targets());
  const size_t before = MemoryManager::instance().stats(MemoryKind::host).bytes_in_use;
  const auto start = std::chrono::steady_clock::now();
  {
    DataLoader loader(ds, DataLoaderOptions().batch_size(10).shuffle().prefetch(4));
    auto first = loader.next();
    ASSERT_TRUE(first.has_value());
    std::this_thread::sleep_for(std::chrono::milliseconds(30));  // let the queue fill
  }
  // The destructor waits for at most the batch in progress, not the rest of the epoch.
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(5));
  EXPECT_EQ(MemoryManager::instance().stats(MemoryKind::host).bytes_in_use, before);
  {
    DataLoader never_started(ds, DataLoaderOptions().batch_size(10));  // idle worker
  }
}

// Throws from fetch when asked for example `bad`.
class FailingDataset : public TensorDataset {
 public:
  FailingDataset(const TensorDataset& base, int64_t bad) : TensorDataset(base), bad_(bad) {}
  void fetch(std::span<const int64_t> indices, const Tensor& inputs,
             const Tensor& targets) const override {
    for (int64_t i : indices)
      EXADNN_CHECK(i != bad_, "FailingDataset", "example ", i, " is unreadable");
    TensorDataset::fetch(indices, inputs, targets);
  }

 private:
  int64_t bad_;
};

TEST_P(DataLoaderPrefetch, DatasetExceptionSurfacesInConsumer) {
  DataLoader loader(FailingDataset(*identity_dataset(20), 13),
                    DataLoaderOptions().batch_size(4).prefetch(GetParam()));
  int good = 0;
  EXPECT_EXADNN_ERROR(
      for (const Batch& b
           : loader) {
        (void)b;
        ++good;
      },
      "FailingDataset", "example 13 is unreadable");
  EXPECT_EQ(good, 3);  // batches 0..2 (indices 0..11) came through; batch 3 holds index 13
  // The failure ended that epoch; the next one starts from the beginning and fails again.
  auto b = loader.next();
  ASSERT_TRUE(b.has_value());
  EXPECT_EQ(targets_of(*b), (std::vector<int64_t>{0, 1, 2, 3}));
  EXPECT_EQ(loader.epoch(), 1);
}

TEST(DataLoader, TransformTurnsU8ImagesIntoFloatBatches) {
  // u8 pixels [6, 1, 2, 2] kept in memory, normalised per batch by the worker.
  std::vector<uint8_t> px(24);
  for (size_t i = 0; i < px.size(); ++i) px[i] = static_cast<uint8_t>(10 * i);
  const TensorDataset ds(from_vector(px, {6, 1, 2, 2}), arange(6, DType::i64));
  DataLoader loader(ds, DataLoaderOptions().batch_size(4).transform(std::make_shared<Normalize>(
                            std::vector<double>{0.5}, std::vector<double>{0.5}, 1.0 / 255.0)));
  std::vector<double> seen;
  for (const Batch& b : loader) {
    EXPECT_EQ(b.inputs.dtype(), DType::f32);
    EXPECT_EQ(b.inputs.shape(), (Shape{b.size(), 1, 2, 2}));
    for (double v : values(b.inputs)) seen.push_back(v);
  }
  ASSERT_EQ(seen.size(), px.size());
  for (size_t i = 0; i < px.size(); ++i) EXPECT_NEAR(seen[i], (px[i] / 255.0 - 0.5) / 0.5, 1e-6);
}

TEST(DataLoader, TransformExceptionSurfacesInConsumer) {
  struct Throws : Transform {
    Tensor apply(const Tensor&, Generator&) const override {
      throw std::runtime_error("transform failed");
    }
  };
  DataLoader loader(identity_dataset(8),
                    DataLoaderOptions().batch_size(4).transform(std::make_shared<Throws>()));
  EXPECT_THROW(loader.next(), std::runtime_error);
}

TEST(DataLoader, KeptBatchesStayValid) {
  DataLoader loader(identity_dataset(12), DataLoaderOptions().batch_size(4).prefetch(2));
  std::vector<Batch> kept;
  for (const Batch& b : loader) kept.push_back(b);
  ASSERT_EQ(kept.size(), 3u);
  for (size_t i = 0; i < kept.size(); ++i)
    EXPECT_EQ(targets_of(kept[i])[0], static_cast<int64_t>(4 * i));
}

TEST(DataLoader, OptionErrors) {
  EXPECT_EXADNN_ERROR(DataLoader(identity_dataset(4), DataLoaderOptions().batch_size(0)),
                      "DataLoader", "batch_size must be at least 1");
  EXPECT_EXADNN_ERROR(DataLoader(identity_dataset(4), DataLoaderOptions().prefetch(-1)),
                      "prefetch must be >= 0");
  EXPECT_EXADNN_ERROR(DataLoader(std::shared_ptr<const Dataset>()), "null dataset");
}

}  // namespace
}  // namespace exadnn::data
