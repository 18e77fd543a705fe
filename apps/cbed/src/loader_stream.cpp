// ShardStream: blocks of samples read ahead on a background thread into a bounded shuffle buffer.
#include <exadnn/core/error.h>

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <exception>
#include <mutex>
#include <thread>

#include <exadnn/ops/factories.h>

#include "cbed/loader.h"
#include "cbed/rng.h"

namespace cbed::shard {

namespace {
struct Block {
  int file;
  int64_t first, count;
};
struct Sample {
  std::vector<float> pixels;  // [3, H, W]
  int64_t target;
};
}  // namespace

struct ShardStream::State {
  std::shared_ptr<const ShardSet> shards;
  StreamOptions o;
  size_t sample_bytes = 0;
  size_t capacity = 0;  // samples the memory limit holds
  int64_t max_block = 0;

  std::mutex lock;
  std::condition_variable changed;
  std::vector<Sample> buffer;
  size_t reserved = 0;  // bytes of samples buffered or being read
  bool reader_done = true, stop = false;
  std::exception_ptr failure;
  std::thread reader;
  Rng pick{0};
  StreamStats stats;

  std::vector<Block> blocks(int epoch) const {
    std::vector<Block> all;
    int index = 0;
    for (int f = 0; f < int(shards->files().size()); ++f) {
      const ShardFile& file = shards->files()[f];
      const int64_t rows = o.block_rows > 0 ? o.block_rows : file.chunk_rows;
      for (int64_t first = 0; first < file.samples; first += rows, ++index)
        if (index % o.replicas == o.rank)
          all.push_back({f, first, std::min(rows, file.samples - first)});
    }
    Rng rng(o.seed * 1000003u + uint64_t(epoch));
    for (size_t i = all.size(); i > 1; --i) std::swap(all[i - 1], all[rng.below(int(i))]);
    return all;
  }

  void read_all(std::vector<Block> order) {
    try {
      for (const Block& b : order) {
        const size_t bytes = size_t(b.count) * sample_bytes;
        {
          std::unique_lock guard(lock);
          changed.wait(guard, [&] { return stop || reserved + bytes <= o.memory_bytes; });
          if (stop) return;
          reserved += bytes;
          stats.peak_buffered_bytes = std::max(stats.peak_buffered_bytes, reserved);
        }
        std::vector<float> rows(size_t(b.count) * sample_bytes / sizeof(float));
        shards->read_rows(b.file, b.first, b.count, rows.data());
        std::lock_guard guard(lock);
        const size_t n = sample_bytes / sizeof(float);
        for (int64_t r = 0; r < b.count; ++r)
          buffer.push_back({std::vector<float>(rows.begin() + r * n, rows.begin() + (r + 1) * n),
                            shards->target(shards->first_of(b.file) + b.first + r, o.target)});
        stats.bytes_read += bytes;
        changed.notify_all();
      }
    } catch (...) {
      std::lock_guard guard(lock);
      failure = std::current_exception();
    }
    std::lock_guard guard(lock);
    reader_done = true;
    changed.notify_all();
  }

  void finish() {
    {
      std::lock_guard guard(lock);
      stop = true;
      changed.notify_all();
    }
    if (reader.joinable()) reader.join();
  }
};

ShardStream::ShardStream(std::shared_ptr<const ShardSet> shards, StreamOptions options)
    : state_(std::make_unique<State>()) {
  State& s = *state_;
  s.shards = std::move(shards);
  s.o = options;
  EXADNN_CHECK(s.o.batch_size >= 1 && s.o.replicas >= 1 && s.o.rank >= 0 &&
                   s.o.rank < s.o.replicas && s.o.block_rows >= 0,
               "cbed::ShardStream", "batch size ", s.o.batch_size, ", block rows ", s.o.block_rows,
               ", rank ", s.o.rank, " of ", s.o.replicas, " are not valid");
  s.sample_bytes = size_t(3) * s.shards->height() * s.shards->width() * sizeof(float);
  for (const ShardFile& f : s.shards->files())
    s.max_block =
        std::max<int64_t>(s.max_block, s.o.block_rows > 0 ? s.o.block_rows : f.chunk_rows);
  s.capacity = s.o.memory_bytes / s.sample_bytes;
  EXADNN_CHECK(s.capacity >= size_t(s.o.batch_size + s.max_block), "cbed::ShardStream",
               "a memory limit of ", s.o.memory_bytes, " bytes holds ", s.capacity, " samples of ",
               s.sample_bytes, " bytes; a batch of ", s.o.batch_size, " and a block of ",
               s.max_block, " need ", (s.o.batch_size + s.max_block) * s.sample_bytes);
  start_epoch(0);
}

ShardStream::~ShardStream() {
  state_->finish();
}

void ShardStream::start_epoch(int epoch) {
  State& s = *state_;
  s.finish();
  s.buffer.clear();
  s.reserved = 0;
  s.stop = false;
  s.reader_done = false;
  s.failure = nullptr;
  s.pick = Rng(s.o.seed * 7919u + uint64_t(epoch) + 1);
  s.reader = std::thread(&State::read_all, &s, s.blocks(epoch));
}

std::optional<exadnn::data::Batch> ShardStream::next() {
  State& s = *state_;
  // Wait for a full buffer (less one block, so the reader is never shut out): the draw then mixes
  // samples of as many blocks, and shards, as the memory limit allows.
  const size_t full = s.capacity - size_t(s.max_block);
  const auto start = std::chrono::steady_clock::now();
  std::unique_lock guard(s.lock);
  s.changed.wait(guard, [&] { return s.reader_done || s.buffer.size() >= full; });
  s.stats.consumer_wait_s +=
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  if (s.failure) std::rethrow_exception(s.failure);
  const int64_t n = std::min<int64_t>(s.o.batch_size, int64_t(s.buffer.size()));
  if (n == 0) return std::nullopt;
  exadnn::data::Batch batch{
      exadnn::empty({n, 3, s.shards->height(), s.shards->width()}, exadnn::DType::f32),
      exadnn::empty({n}, exadnn::DType::i64)};
  float* x = batch.inputs.data<float>();
  int64_t* y = batch.targets.data<int64_t>();
  const size_t per = s.sample_bytes / sizeof(float);
  for (int64_t b = 0; b < n; ++b) {
    const size_t i = size_t(s.pick.below(int(s.buffer.size())));
    std::copy(s.buffer[i].pixels.begin(), s.buffer[i].pixels.end(), x + b * per);
    y[b] = s.buffer[i].target;
    std::swap(s.buffer[i], s.buffer.back());
    s.buffer.pop_back();
  }
  s.reserved -= size_t(n) * s.sample_bytes;
  s.stats.samples += n;
  s.changed.notify_all();
  return batch;
}

StreamStats ShardStream::stats() const {
  std::lock_guard guard(state_->lock);
  return state_->stats;
}

}  // namespace cbed::shard
