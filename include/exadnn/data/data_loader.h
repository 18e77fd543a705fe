// DataLoader: batches of a Dataset in seeded, per-epoch shuffled order, built ahead of time by a
// background thread so the next batch is ready while the current one trains.
//
//   data::DataLoader loader(data::load_mnist(dir, data::Split::train),
//                           data::DataLoaderOptions().batch_size(128).shuffle(true).seed(0));
//   for (int epoch = 0; epoch < 3; ++epoch)
//     for (const data::Batch& b : loader) train_step(b.inputs, b.targets);  // one epoch each
#pragma once

#include <concepts>
#include <cstdint>
#include <iterator>
#include <memory>
#include <optional>
#include <type_traits>
#include <vector>

#include "exadnn/data/batch_stream.h"
#include "exadnn/data/dataset.h"
#include "exadnn/data/distributed_sampler.h"
#include "exadnn/data/transforms.h"

namespace exadnn::data {

/// Settings of a DataLoader (chained setters).
class DataLoaderOptions {
 public:
  DataLoaderOptions() = default;
  /// Examples per batch (default 1).
  DataLoaderOptions& batch_size(int64_t n) {
    batch_size_ = n;
    return *this;
  }
  /// Visit examples in a random order, reshuffled every epoch (default false: in order).
  DataLoaderOptions& shuffle(bool on = true) {
    shuffle_ = on;
    return *this;
  }
  /// Seed of the shuffles and the random transforms; epoch e's order depends on (seed, e) only.
  DataLoaderOptions& seed(uint64_t s) {
    seed_ = s;
    return *this;
  }
  /// Drop the last batch of an epoch when it has fewer than batch_size examples (default false).
  DataLoaderOptions& drop_last(bool on = true) {
    drop_last_ = on;
    return *this;
  }
  /// Batches a background thread builds ahead of the consumer; 0 builds each batch in next()
  /// on the calling thread (default 2).
  DataLoaderOptions& prefetch(int64_t n) {
    prefetch_ = n;
    return *this;
  }
  /// Visit only rank `rank`'s shard of every epoch among `num_replicas` data-parallel ranks
  /// (see DistributedSampler); the shuffle seed must be the same on every rank.
  DataLoaderOptions& distributed(int rank, int num_replicas) {
    sampler_ = DistributedSampler(rank, num_replicas);
    return *this;
  }
  /// Transform applied to each batch's inputs by the worker (default none).
  DataLoaderOptions& transform(std::shared_ptr<const Transform> t) {
    transform_ = std::move(t);
    return *this;
  }

  /// Read band `part` of `parts` equal bands of each example's height (its second to last axis):
  /// batches' inputs are [B, ..., H / parts, W] (spatial parallelism: each rank of a group reads
  /// its rows of every image, never the whole image). The dataset reads only the band
  /// (Dataset::fetch_band) when there is no transform or a pointwise one; a transform that needs
  /// whole examples (Transform::pointwise() false) gets them, and the band is cut from its result.
  /// Error at the loader's construction unless `parts` divides the height.
  DataLoaderOptions& height_band(int part, int parts) {
    band_ = BandPart{part, parts};
    return *this;
  }

  /// A band of the height: band `part` of `parts`.
  struct BandPart {
    int part = 0, parts = 1;
  };

  int64_t batch_size() const { return batch_size_; }
  bool shuffle() const { return shuffle_; }
  uint64_t seed() const { return seed_; }
  bool drop_last() const { return drop_last_; }
  int64_t prefetch() const { return prefetch_; }
  const std::shared_ptr<const Transform>& transform() const { return transform_; }
  const std::optional<DistributedSampler>& sampler() const { return sampler_; }
  const std::optional<BandPart>& height_band() const { return band_; }
  /// Whether the examples' band alone is read: a height band and no transform or a pointwise
  /// one. A BatchStream built from these options reads only the band then, whole examples
  /// otherwise (the loader cuts the band after the transform).
  bool reads_band_only() const { return band_ && (!transform_ || transform_->pointwise()); }

 private:
  int64_t batch_size_ = 1;
  bool shuffle_ = false;
  uint64_t seed_ = 0;
  bool drop_last_ = false;
  int64_t prefetch_ = 2;
  std::shared_ptr<const Transform> transform_;
  std::optional<DistributedSampler> sampler_;
  std::optional<BandPart> band_;
};

/// Iterates a Dataset in batches, one epoch at a time.
///
/// Epochs are numbered 0, 1, 2, ...: each range-for over the loader (each begin()) runs the next
/// epoch, and so does a sequence of next() calls, which returns std::nullopt once at the end of
/// each epoch. Batches are new tensors (memory comes from the MemoryManager's cache), so a caller
/// may keep them. An exception thrown while building a batch (by the dataset or a transform) is
/// rethrown by the next()/++ that would have returned that batch, and ends the epoch.
/// Destroying the loader mid-epoch stops and joins its worker. Not safe to use from two threads.
class DataLoader {
 public:
  /// Loads batches of `dataset`.
  DataLoader(std::shared_ptr<const Dataset> dataset, DataLoaderOptions options = {});
  /// Takes a dataset by value (e.g. a TensorDataset, which shares its tensors).
  template <class D>
  requires std::derived_from<std::remove_cvref_t<D>, Dataset> DataLoader(
      D&& dataset, DataLoaderOptions options = {})  // NOLINT: loader(load_mnist(...))
      : DataLoader(std::make_shared<std::remove_cvref_t<D>>(std::forward<D>(dataset)),
                   std::move(options)) {}
  /// Hands out the batches of `stream` as they come (an out-of-core loader): `dataset` describes
  /// the examples (shapes, size) and is not read; the options' transform still applies, while
  /// batch size, shuffle, seed and rank are the stream's own (it was built with them). build()
  /// and epoch_order() are an Error: a stream has no random access.
  DataLoader(std::shared_ptr<const Dataset> dataset, std::unique_ptr<BatchStream> stream,
             DataLoaderOptions options = {});
  ~DataLoader();
  DataLoader(const DataLoader&) = delete;
  DataLoader& operator=(const DataLoader&) = delete;

  /// Batches in one epoch.
  int64_t batches_per_epoch() const;
  /// Same as batches_per_epoch().
  int64_t size() const { return batches_per_epoch(); }
  /// The dataset as given (whole examples, also with a height band).
  const Dataset& dataset() const { return *dataset_; }
  const DataLoaderOptions& options() const { return options_; }

  /// The epoch in progress or last finished (-1 before the first).
  int64_t epoch() const { return epoch_; }
  /// Makes `epoch` the next epoch to run (to resume a run), abandoning any epoch in progress.
  void set_epoch(int64_t epoch);
  /// The order in which epoch `epoch` visits the dataset's indices.
  std::vector<int64_t> epoch_order(int64_t epoch) const;
  /// Batch `batch_index` of epoch `epoch`, whose order is `order` (= epoch_order(epoch)): the
  /// batch next() would return. Const and safe to call from several threads at once (the
  /// workers of async::AsyncTrainer draw their batches this way).
  Batch build(int64_t batch_index, int64_t epoch, const std::vector<int64_t>& order) const;

  /// The next batch of the current epoch (starting the next epoch if none is in progress), or
  /// std::nullopt when the epoch has ended.
  std::optional<Batch> next();

  /// Input iterator over the batches of one epoch.
  class Iterator {
   public:
    using value_type = Batch;
    using difference_type = std::ptrdiff_t;
    Iterator() = default;
    const Batch& operator*() const { return *current_; }
    const Batch* operator->() const { return &*current_; }
    Iterator& operator++();
    void operator++(int) { ++*this; }
    friend bool operator==(const Iterator& it, std::default_sentinel_t) { return !it.current_; }

   private:
    friend class DataLoader;
    explicit Iterator(DataLoader* loader);
    DataLoader* loader_ = nullptr;
    std::optional<Batch> current_;
  };
  /// Starts the next epoch (abandoning one in progress) and returns its first batch.
  Iterator begin();
  std::default_sentinel_t end() const { return {}; }

 private:
  struct Worker;
  void start_epoch();
  void end_epoch();
  // Applies the options' transform to batch `batch_index` of epoch `epoch` (seeded by both),
  // then cuts the height band from whole examples.
  void transform(Batch& batch, int64_t batch_index, int64_t epoch) const;
  // The options' height band against the dataset's examples: sets band_ and source_.
  void take_band();
  // Shuffles `order` in place, the same way on every rank for a given (seed, epoch).
  void shuffle(std::vector<int64_t>& order, int64_t epoch) const;

  std::shared_ptr<const Dataset> dataset_;
  std::shared_ptr<const Dataset> source_;  // what batches are read from: dataset_ or its band
  std::optional<HeightBand> band_;         // the options' height band, in rows
  DataLoaderOptions options_;
  int64_t epoch_ = -1;      // epoch in progress or last run
  int64_t next_epoch_ = 0;  // the epoch the next start_epoch() runs
  bool in_epoch_ = false;
  int64_t consumed_ = 0;  // batches handed out this epoch
  std::shared_ptr<const std::vector<int64_t>> order_;
  std::unique_ptr<Worker> worker_;       // null when prefetch is 0 or the batches are streamed
  std::unique_ptr<BatchStream> stream_;  // null: batches built from the dataset by index
};

}  // namespace exadnn::data
