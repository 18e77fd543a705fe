// DataLoader: epoch orders from (seed, epoch), batches built by one background worker that stays
// at most `prefetch` batches ahead of the consumer.
#include "exadnn/data/data_loader.h"

#include <condition_variable>
#include <deque>
#include <exception>
#include <mutex>
#include <numeric>
#include <thread>

#include "data/seed.h"
#include "exadnn/core/profiler.h"
#include "exadnn/core/rng.h"
#include "exadnn/data/height_band.h"

namespace exadnn::data {
namespace {
constexpr uint64_t kShuffleStream = 0x73687566666c65ull;    // "shuffle"
constexpr uint64_t kTransformStream = 0x7472616e73666dull;  // "transfm"
}  // namespace

// The background producer. Everything below `mu` is guarded by it. Each epoch the consumer
// starts bumps `generation`, so a batch finished for an abandoned epoch is thrown away.
struct DataLoader::Worker {
  struct Item {
    Batch batch;
    std::exception_ptr error;
  };

  std::mutex mu;
  std::condition_variable wake_worker;
  std::condition_variable wake_consumer;
  bool stop = false;
  uint64_t generation = 0;
  int64_t epoch = 0;
  std::shared_ptr<const std::vector<int64_t>> order;
  int64_t total = 0;       // batches in the epoch being produced
  int64_t next_build = 0;  // next batch index to build
  int64_t taken = 0;       // batches the consumer has taken this epoch
  std::deque<Item> ready;  // built batches, in order
  std::thread thread;

  void run(const DataLoader& loader, int64_t depth) {
    std::unique_lock lock(mu);
    for (;;) {
      wake_worker.wait(lock,
                       [&] { return stop || (next_build < total && next_build - taken < depth); });
      if (stop) return;
      const int64_t index = next_build++;
      const uint64_t gen = generation;
      const int64_t ep = epoch;
      const std::shared_ptr<const std::vector<int64_t>> ord = order;
      lock.unlock();
      Item item;
      try {
        item.batch = loader.build(index, ep, *ord);
      } catch (...) {
        item.error = std::current_exception();
      }
      lock.lock();
      if (gen != generation) continue;     // the epoch was abandoned meanwhile
      if (item.error) next_build = total;  // nothing after a failed batch
      ready.push_back(std::move(item));
      wake_consumer.notify_one();
    }
  }

  // Drops the epoch being produced; the worker idles until the next one is posted.
  void reset(uint64_t new_epoch, std::shared_ptr<const std::vector<int64_t>> new_order,
             int64_t batches) {
    std::deque<Item> dropped;  // destroyed outside the lock
    {
      std::lock_guard lock(mu);
      ++generation;
      epoch = static_cast<int64_t>(new_epoch);
      order = std::move(new_order);
      total = batches;
      next_build = 0;
      taken = 0;
      dropped.swap(ready);
    }
    wake_worker.notify_one();
  }
};

DataLoader::DataLoader(std::shared_ptr<const Dataset> dataset, DataLoaderOptions options)
    : dataset_(std::move(dataset)), options_(std::move(options)) {
  EXADNN_CHECK(dataset_ != nullptr, "DataLoader", "null dataset");
  take_band();
  EXADNN_CHECK(options_.batch_size() >= 1, "DataLoader", "batch_size must be at least 1, got ",
               options_.batch_size());
  EXADNN_CHECK(options_.prefetch() >= 0, "DataLoader", "prefetch must be >= 0, got ",
               options_.prefetch());
  if (options_.prefetch() > 0) {
    worker_ = std::make_unique<Worker>();
    const int64_t depth = options_.prefetch();
    worker_->thread = std::thread([this, depth] { worker_->run(*this, depth); });
  }
}

DataLoader::DataLoader(std::shared_ptr<const Dataset> dataset, std::unique_ptr<BatchStream> stream,
                       DataLoaderOptions options)
    : dataset_(std::move(dataset)), options_(std::move(options)), stream_(std::move(stream)) {
  EXADNN_CHECK(dataset_ != nullptr && stream_ != nullptr, "DataLoader", "null dataset or stream");
  take_band();
}

void DataLoader::take_band() {
  source_ = dataset_;
  if (!options_.height_band()) return;
  const auto [part, parts] = *options_.height_band();
  band_ = height_band(dataset_->input_shape(), part, parts);
  if (options_.reads_band_only()) source_ = std::make_shared<HeightBandView>(dataset_, *band_);
}

DataLoader::~DataLoader() {
  if (!worker_) return;
  {
    std::lock_guard lock(worker_->mu);
    worker_->stop = true;
  }
  worker_->wake_worker.notify_all();
  worker_->thread.join();
}

int64_t DataLoader::batches_per_epoch() const {
  if (stream_) return stream_->batches_per_epoch();
  const int64_t n =
      options_.sampler() ? options_.sampler()->shard_size(dataset_->size()) : dataset_->size();
  const int64_t b = options_.batch_size();
  return options_.drop_last() ? n / b : (n + b - 1) / b;
}

void DataLoader::set_epoch(int64_t epoch) {
  EXADNN_CHECK(epoch >= 0, "DataLoader", "epoch must be >= 0, got ", epoch);
  if (in_epoch_) end_epoch();
  next_epoch_ = epoch;
}

std::vector<int64_t> DataLoader::epoch_order(int64_t epoch) const {
  EXADNN_CHECK(!stream_, "DataLoader",
               "this loader streams its batches (no epoch order by index); a strategy that draws "
               "batches by index (async_rma, worker threads) cannot train from a stream");
  std::vector<int64_t> order(static_cast<size_t>(dataset_->size()));
  std::iota(order.begin(), order.end(), int64_t{0});
  if (options_.shuffle()) shuffle(order, epoch);
  return options_.sampler() ? options_.sampler()->shard(order) : order;
}

void DataLoader::shuffle(std::vector<int64_t>& order, int64_t epoch) const {
  // Fisher-Yates from a generator that depends on (seed, epoch) only.
  const Generator gen(internal::combine_seed(
      internal::combine_seed(options_.seed(), kShuffleStream), static_cast<uint64_t>(epoch)));
  uint64_t counter = 0;
  for (size_t i = order.size(); i > 1; --i) {
    const size_t j = internal::bounded(gen.bits_at(counter++), i);
    std::swap(order[i - 1], order[j]);
  }
}

Batch DataLoader::build(int64_t batch_index, int64_t epoch,
                        const std::vector<int64_t>& order) const {
  EXADNN_CHECK(!stream_, "DataLoader",
               "this loader streams its batches (no batch by index); a strategy that draws "
               "batches by index (async_rma, worker threads) cannot train from a stream");
  const int64_t b = options_.batch_size();
  const int64_t start = batch_index * b;
  const int64_t count = std::min<int64_t>(b, static_cast<int64_t>(order.size()) - start);
  Batch batch = source_->get_batch(
      std::span<const int64_t>(order.data() + start, static_cast<size_t>(count)));
  transform(batch, batch_index, epoch);
  return batch;
}

void DataLoader::transform(Batch& batch, int64_t batch_index, int64_t epoch) const {
  if (options_.transform()) {
    Generator gen(internal::combine_seed(
        internal::combine_seed(internal::combine_seed(options_.seed(), kTransformStream),
                               static_cast<uint64_t>(epoch)),
        static_cast<uint64_t>(batch_index)));
    batch.inputs = options_.transform()->apply(batch.inputs, gen);
  }
  // Whole examples (a transform that needs them, or a stream that read them): the band of them.
  if (!band_) return;
  const Shape example = dataset_->input_shape();
  const int64_t height = example[example.size() - 2];
  if (band_->rows() != height && batch.inputs.size(batch.inputs.dim() - 2) == height)
    batch.inputs = cut_band(batch.inputs, *band_);
}

void DataLoader::start_epoch() {
  if (in_epoch_) end_epoch();
  epoch_ = next_epoch_++;
  consumed_ = 0;
  in_epoch_ = true;
  if (stream_) {
    stream_->start_epoch(epoch_);
    return;
  }
  order_ = std::make_shared<const std::vector<int64_t>>(epoch_order(epoch_));
  if (worker_) worker_->reset(static_cast<uint64_t>(epoch_), order_, batches_per_epoch());
}

void DataLoader::end_epoch() {
  in_epoch_ = false;
  if (worker_) worker_->reset(static_cast<uint64_t>(epoch_), nullptr, 0);
}

std::optional<Batch> DataLoader::next() {
  const profiler::Region region(profiler::Phase::data, "data");  // the wait for the batch
  if (!in_epoch_) start_epoch();
  if (consumed_ >= batches_per_epoch()) {
    end_epoch();
    return std::nullopt;
  }
  if (stream_) {
    std::optional<Batch> b;
    try {
      b = stream_->next();
    } catch (...) {
      end_epoch();
      throw;
    }
    EXADNN_CHECK(b.has_value(), "DataLoader", "the stream ended epoch ", epoch_, " after ",
                 consumed_, " of its ", batches_per_epoch(), " batches");
    transform(*b, consumed_++, epoch_);
    return b;
  }
  if (!worker_) {
    try {
      Batch b = build(consumed_, epoch_, *order_);
      ++consumed_;
      return b;
    } catch (...) {
      end_epoch();
      throw;
    }
  }
  Worker::Item item;
  {
    std::unique_lock lock(worker_->mu);
    worker_->wake_consumer.wait(lock, [&] { return !worker_->ready.empty(); });
    item = std::move(worker_->ready.front());
    worker_->ready.pop_front();
    ++worker_->taken;
  }
  worker_->wake_worker.notify_one();
  ++consumed_;
  if (item.error) {
    end_epoch();
    std::rethrow_exception(item.error);
  }
  return std::move(item.batch);
}

DataLoader::Iterator::Iterator(DataLoader* loader) : loader_(loader), current_(loader->next()) {}

DataLoader::Iterator& DataLoader::Iterator::operator++() {
  current_ = loader_->next();
  return *this;
}

DataLoader::Iterator DataLoader::begin() {
  start_epoch();
  return Iterator(this);
}

}  // namespace exadnn::data
