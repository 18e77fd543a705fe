// ShardStream: blocks of samples read ahead on a background thread into a bounded shuffle buffer.
//
// The order is a function of (seed, epoch) and the plan (capacity, block sizes) only, never of how
// far the reader has run ahead: read blocks wait in `staged`, in order, and enter the pool that
// batches draw from one by one, only while the pool holds fewer than `ready` samples. The ranks of
// a model-split replica (spatial, tensor, pipeline), each streaming the same share, so draw the
// same samples into every batch. The plan is made for whole patterns, with or without a band, so
// a band's stream (spatial parallelism) draws what one process would, in 1/S of the memory.
#include <exadnn/core/error.h>

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <deque>
#include <exception>
#include <mutex>
#include <new>
#include <thread>

#include <exadnn/ops/factories.h>

#include "cbed/loader.h"
#include "cbed/pattern_scale.h"
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
  std::optional<exadnn::data::HeightBand> band;  // the rows read of each pattern (none: all)
  int64_t rows = 0;                              // of each pattern read: H or the band's
  size_t sample_bytes = 0;  // of one sample as read (its band's rows only, with a band)
  size_t whole_bytes = 0;   // of one whole sample: what the plan is made for
  size_t capacity = 0;      // samples the memory limit holds (of whole samples)
  size_t ready = 0;         // samples the pool holds before a draw (fewer at the epoch's end)
  int64_t max_block = 0;
  std::vector<int64_t> block_rows;  // per file
  int64_t per_rank = 0;             // samples this rank reads per epoch

  std::mutex lock;
  std::condition_variable changed;
  std::vector<Sample> buffer;              // the pool batches draw from
  std::deque<std::vector<Sample>> staged;  // blocks read, in order, not yet in the pool
  size_t epoch_blocks = 0, pooled = 0;     // blocks of the epoch; blocks moved into the pool
  size_t reserved = 0;                     // bytes of samples pooled, staged or being read
  bool reader_done = true, stop = false, started = false;
  std::exception_ptr failure;
  std::thread reader;
  Rng pick{0};
  StreamStats stats;

  // This rank's blocks of epoch `epoch`: every shard's blocks in one order shuffled by
  // (seed, epoch), the same on every rank, their samples laid end to end; rank r takes samples
  // [r p, (r + 1) p) of that sequence, p = N / replicas (a block across a boundary is split), so
  // every rank has p samples, and the ranks together all of them once (the last N mod replicas
  // left out, as DistributedSampler does).
  std::vector<Block> blocks(int64_t epoch) const {
    std::vector<Block> all;
    for (int f = 0; f < int(shards->files().size()); ++f) {
      const ShardFile& file = shards->files()[f];
      for (int64_t first = 0; first < file.samples; first += block_rows[f])
        all.push_back({f, first, std::min(block_rows[f], file.samples - first)});
    }
    Rng rng(o.seed * 1000003u + uint64_t(epoch));
    for (size_t i = all.size(); i > 1; --i) std::swap(all[i - 1], all[rng.below(int(i))]);
    const int64_t begin = o.rank * per_rank, end = begin + per_rank;
    std::vector<Block> mine;
    int64_t at = 0;  // position of the block's first sample in the sequence
    for (const Block& b : all) {
      const int64_t lo = std::max(at, begin), hi = std::min(at + b.count, end);
      if (lo < hi) mine.push_back({b.file, b.first + (lo - at), hi - lo});
      at += b.count;
    }
    return mine;
  }

  void read_all(std::vector<Block> order) {
    try {
      for (const Block& b : order) {
        const size_t bytes = size_t(b.count) * sample_bytes;
        {
          std::unique_lock guard(lock);
          changed.wait(guard, [&] { return stop || reserved + bytes <= capacity * sample_bytes; });
          if (stop) return;
          reserved += bytes;
          stats.peak_buffered_bytes = std::max(stats.peak_buffered_bytes, reserved);
        }
        // Read and split outside the lock, so batches are drawn meanwhile.
        std::vector<Sample> block = read_block(b);
        std::lock_guard guard(lock);
        staged.push_back(std::move(block));
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

  // Block `b`'s samples, read and scaled. The process running out of memory (a limit on its
  // address space, say) is an Error naming the block, not a bare std::bad_alloc.
  std::vector<Sample> read_block(const Block& b) const {
    try {
      std::vector<float> rows(size_t(b.count) * sample_bytes / sizeof(float));
      shards->read_rows(b.file, b.first, b.count, rows.data(), band);
      const size_t n = sample_bytes / sizeof(float);
      std::vector<Sample> block;
      for (int64_t r = 0; r < b.count; ++r) {
        const int64_t sample = shards->first_of(b.file) + b.first + r;
        if (o.scale == Scale::log) scale(rows.data() + r * n, sample);
        block.push_back({std::vector<float>(rows.begin() + r * n, rows.begin() + (r + 1) * n),
                         shards->target(sample, o.target)});
      }
      return block;
    } catch (const std::bad_alloc&) {
      throw exadnn::Error(
          "cbed::ShardStream",
          exadnn::detail::cat("out of memory reading rows ", b.first, "..", b.first + b.count,
                              " of ", shards->files()[b.file].path, " (",
                              2 * b.count * sample_bytes,
                              " bytes at most, beside the stream's buffer of ", o.memory_bytes,
                              " bytes): the process has no memory left (a memory or "
                              "address-space limit?); a smaller data.batch_size or model needs "
                              "less"));
    }
  }

  // Sample `sample`'s 3 patterns (of `rows` rows each) on the log scale: the stored maxima for a
  // band, each pattern's own when whole.
  void scale(float* stack, int64_t sample) const {
    const int64_t pixels = rows * shards->width();
    for (int axis = 0; axis < 3; ++axis) {
      float* pattern = stack + axis * pixels;
      log_scale_pixels(pattern, pixels,
                       band ? shards->pattern_max(sample, axis) : pattern_max(pattern, pixels));
    }
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
  s.per_rank = s.shards->size() / s.o.replicas;
  // A band is read alone from generator shards, where a log scale has each pattern's maximum.
  if (s.o.band && s.shards->layout().format == FileLayout::Format::shards &&
      (s.o.scale == Scale::raw || s.shards->has_pattern_max()))
    s.band = s.o.band;
  s.rows = s.band ? s.band->rows() : s.shards->height();
  s.sample_bytes = size_t(3) * s.rows * s.shards->width() * sizeof(float);
  s.whole_bytes = size_t(3) * s.shards->height() * s.shards->width() * sizeof(float);
  s.capacity = s.o.memory_bytes / s.whole_bytes;
  // Default block: whole chunks, up to 1 MiB per read, and at most a quarter of what the buffer
  // holds beside a batch (so many blocks mix); never less than a chunk.
  for (const ShardFile& f : s.shards->files()) {
    int64_t rows = s.o.block_rows;
    if (rows == 0) {
      const int64_t chunk = f.chunk_rows;
      const int64_t by_size = std::max<int64_t>(1, (int64_t(1) << 20) / (chunk * s.whole_bytes));
      const int64_t by_buffer = (int64_t(s.capacity) - s.o.batch_size) / 4 / chunk;
      rows = chunk * std::max<int64_t>(1, std::min(by_size, by_buffer));
    }
    s.block_rows.push_back(rows);
    s.max_block = std::max(s.max_block, rows);
  }
  EXADNN_CHECK(s.capacity >= size_t(s.o.batch_size + s.max_block), "cbed::ShardStream",
               "a memory limit of ", s.o.memory_bytes, " bytes holds ", s.capacity, " samples of ",
               s.whole_bytes, " bytes; a batch of ", s.o.batch_size, " and a block of ",
               s.max_block, " need ", (s.o.batch_size + s.max_block) * s.whole_bytes);
  // Draw once the pool is at least half full (of what the limit leaves beside a block being
  // read), so each draw mixes samples of many blocks and shards while the reader keeps reading.
  s.ready = std::max(size_t(s.o.batch_size), (s.capacity - size_t(s.max_block)) / 2);
}

ShardStream::~ShardStream() {
  state_->finish();
}

int64_t ShardStream::samples_per_epoch() const {
  return state_->per_rank;
}

int64_t ShardStream::batches_per_epoch() const {
  return (state_->per_rank + state_->o.batch_size - 1) / state_->o.batch_size;
}

void ShardStream::start_epoch(int64_t epoch) {
  State& s = *state_;
  s.finish();
  s.buffer.clear();
  s.staged.clear();
  s.reserved = 0;
  s.stop = false;
  s.reader_done = false;
  s.failure = nullptr;
  s.started = true;
  s.pick = Rng(s.o.seed * 7919u + uint64_t(epoch) + 1);
  std::vector<Block> order = s.blocks(epoch);
  s.epoch_blocks = order.size();
  s.pooled = 0;
  s.reader = std::thread(&State::read_all, &s, std::move(order));
}

std::optional<exadnn::data::Batch> ShardStream::next() {
  State& s = *state_;
  if (!s.started) start_epoch(0);
  const auto start = std::chrono::steady_clock::now();
  std::vector<Sample> drawn;
  {
    std::unique_lock guard(s.lock);
    // Blocks enter the pool in order until it holds `ready` samples (or every block is in).
    for (;;) {
      if (s.failure) std::rethrow_exception(s.failure);
      while (s.buffer.size() < s.ready && !s.staged.empty()) {
        for (Sample& sample : s.staged.front()) s.buffer.push_back(std::move(sample));
        s.staged.pop_front();
        ++s.pooled;
      }
      if (s.buffer.size() >= s.ready || s.pooled == s.epoch_blocks) break;
      EXADNN_CHECK(!s.reader_done || !s.staged.empty(), "cbed::ShardStream",
                   "the reader stopped after ", s.pooled, " of ", s.epoch_blocks, " blocks");
      s.changed.wait(guard);
    }
    s.stats.consumer_wait_s +=
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    const int64_t n = std::min<int64_t>(s.o.batch_size, int64_t(s.buffer.size()));
    for (int64_t b = 0; b < n; ++b) {
      const size_t i = size_t(s.pick.below(int(s.buffer.size())));
      std::swap(s.buffer[i], s.buffer.back());
      drawn.push_back(std::move(s.buffer.back()));
      s.buffer.pop_back();
    }
    s.reserved -= drawn.size() * s.sample_bytes;
    s.stats.samples += int64_t(drawn.size());
    s.changed.notify_all();
  }
  if (drawn.empty()) return std::nullopt;
  const int64_t n = int64_t(drawn.size());
  exadnn::data::Batch batch{exadnn::empty({n, 3, s.rows, s.shards->width()}, exadnn::DType::f32),
                            exadnn::empty({n}, exadnn::DType::i64)};
  float* x = batch.inputs.data<float>();
  int64_t* y = batch.targets.data<int64_t>();
  const size_t per = s.sample_bytes / sizeof(float);
  for (int64_t b = 0; b < n; ++b) {
    std::copy(drawn[b].pixels.begin(), drawn[b].pixels.end(), x + b * per);
    y[b] = drawn[b].target;
  }
  return batch;
}

StreamStats ShardStream::stats() const {
  std::lock_guard guard(state_->lock);
  return state_->stats;
}

}  // namespace cbed::shard
