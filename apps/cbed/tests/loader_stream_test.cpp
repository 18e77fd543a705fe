// The out-of-core ShardStream: every sample once per epoch, never more than the memory limit
// buffered, samples of different shards mixed within a batch, and bad settings named.
#include <gtest/gtest.h>

#include <chrono>
#include <set>
#include <thread>

#include "cbed/loader.h"
#include "shard_test_util.h"

namespace cbed::shard {
namespace {

using testing::temp_dir;
using testing::write_test_shard;

// Three train shards of 40 samples, 8 x 8 (768 bytes a sample), 4 samples per chunk.
std::shared_ptr<const ShardSet> three_shards(const std::string& name) {
  const std::string dir = temp_dir(name);
  for (int s = 0; s < 3; ++s) write_test_shard(dir, Split::train, s, 40 * s, 40, 8, 4);
  return std::make_shared<const ShardSet>(ShardSet::open_split(dir, Split::train));
}

TEST(ShardStream, EverySampleOncePerEpochWithinTheMemoryLimit) {
  const auto shards = three_shards("stream_epoch");
  const size_t sample = 3 * 8 * 8 * sizeof(float);
  StreamOptions o;
  o.batch_size = 8;
  o.memory_bytes = 24 * sample;  // a fifth of the 120 samples
  o.seed = 3;
  ShardStream stream(shards, o);
  std::vector<int64_t> first_epoch;
  for (int epoch = 0; epoch < 2; ++epoch) {
    stream.start_epoch(epoch);
    std::multiset<int64_t> seen;
    std::vector<int64_t> order;
    while (auto batch = stream.next()) {
      EXPECT_LE(batch->size(), 8);
      for (int64_t i = 0; i < batch->size(); ++i) {
        const int64_t id = int64_t(batch->inputs.data<float>()[i * 192]);
        EXPECT_EQ(batch->targets.data<int64_t>()[i], shards->space_groups()[id] - 1);
        seen.insert(id);
        order.push_back(id);
      }
    }
    ASSERT_EQ(seen.size(), 120u);
    EXPECT_EQ(std::set<int64_t>(seen.begin(), seen.end()).size(), 120u);  // each exactly once
    if (epoch == 0)
      first_epoch = order;
    else
      EXPECT_NE(order, first_epoch);  // a new order every epoch
  }
  const StreamStats stats = stream.stats();
  EXPECT_LE(stats.peak_buffered_bytes, o.memory_bytes);
  // Read-ahead happened: every draw waits for at least half of what the limit leaves beside a
  // block, (24 - 4) / 2 = 10 samples. How far beyond that the reader gets depends on how fast it
  // runs against the consumer (12 samples under the sanitizers, up to 24 in a release build), so
  // only the guaranteed 10 is asserted.
  EXPECT_GE(stats.peak_buffered_bytes, 10 * sample);
  EXPECT_EQ(stats.bytes_read, 240 * sample);
  EXPECT_EQ(stats.samples, 240);
}

TEST(ShardStream, BatchesMixShards) {
  const auto shards = three_shards("stream_mix");
  StreamOptions o;
  o.batch_size = 12;
  o.memory_bytes = 48 * 3 * 8 * 8 * sizeof(float);
  ShardStream stream(shards, o);
  int mixed = 0, batches = 0;
  while (auto batch = stream.next()) {
    std::set<int64_t> files;
    for (int64_t i = 0; i < batch->size(); ++i)
      files.insert(int64_t(batch->inputs.data<float>()[i * 192]) / 40);
    mixed += files.size() > 1;
    ++batches;
  }
  EXPECT_EQ(batches, 10);
  EXPECT_GE(mixed, 8);  // blocks of 4 from 3 files: nearly every batch holds several files
}

// Ranks 0..R-1 of one epoch: each reads N / R samples (the same number of batches), and together
// every sample once (N mod R left out), for 2 ranks (120 = 2 x 60) and 7 (7 x 17 = 119), with a
// new split each epoch.
TEST(ShardStream, DataParallelRanksSplitEachEpochWithoutOverlap) {
  const auto shards = three_shards("stream_ranks");
  for (int replicas : {2, 7}) {
    std::vector<int64_t> first_epoch_rank0;
    for (int epoch = 0; epoch < 2; ++epoch) {
      std::multiset<int64_t> all;
      for (int rank = 0; rank < replicas; ++rank) {
        StreamOptions o;
        o.batch_size = 5;
        o.memory_bytes = 20 * 3 * 8 * 8 * sizeof(float);
        o.rank = rank;
        o.replicas = replicas;
        o.seed = 11;
        ShardStream stream(shards, o);
        EXPECT_EQ(stream.samples_per_epoch(), 120 / replicas);
        EXPECT_EQ(stream.batches_per_epoch(), (120 / replicas + 4) / 5);
        stream.start_epoch(epoch);
        std::vector<int64_t> mine;
        int64_t batches = 0;
        while (auto batch = stream.next()) {
          ++batches;
          for (int64_t i = 0; i < batch->size(); ++i)
            mine.push_back(int64_t(batch->inputs.data<float>()[i * 192]));
        }
        EXPECT_EQ(int64_t(mine.size()), 120 / replicas) << "rank " << rank << " of " << replicas;
        EXPECT_EQ(batches, stream.batches_per_epoch());
        all.insert(mine.begin(), mine.end());
        if (rank == 0 && epoch == 0) first_epoch_rank0 = mine;
        if (rank == 0 && epoch == 1) {
          EXPECT_NE(std::set<int64_t>(mine.begin(), mine.end()),
                    std::set<int64_t>(first_epoch_rank0.begin(), first_epoch_rank0.end()));
        }
      }
      EXPECT_EQ(all.size(), size_t(120 - 120 % replicas));
      EXPECT_EQ(std::set<int64_t>(all.begin(), all.end()).size(), all.size());  // no overlap
    }
  }
}

TEST(ShardStream, TooLittleMemoryIsNamed) {
  const auto shards = three_shards("stream_memory");
  StreamOptions o;
  o.batch_size = 16;
  o.memory_bytes = 10 * 3 * 8 * 8 * sizeof(float);
  try {
    ShardStream stream(shards, o);
    FAIL();
  } catch (const exadnn::Error& e) {
    EXPECT_NE(std::string(e.what()).find("a memory limit of 7680 bytes holds 10 samples"),
              std::string::npos)
        << e.what();
  }
}

TEST(ShardStream, AShardTruncatedAfterOpeningFailsTheBatchByName) {
  const std::string dir = temp_dir("stream_truncated");
  write_test_shard(dir, Split::train, 0, 0, 40, 8, 4);
  auto shards = std::make_shared<const ShardSet>(ShardSet::open_split(dir, Split::train));
  const std::string path = dir + "/" + shard_file_name(Split::train, 0);
  std::filesystem::resize_file(path, std::filesystem::file_size(path) / 2);
  StreamOptions o;
  o.batch_size = 4;
  o.memory_bytes = 16 * 3 * 8 * 8 * sizeof(float);
  try {
    ShardStream stream(shards, o);
    while (stream.next()) {
    }
    FAIL();
  } catch (const exadnn::Error& e) {
    EXPECT_NE(std::string(e.what()).find(path), std::string::npos) << e.what();
    // libhdf5's own account (here: "truncated file: eof = ..."), not a guess: a read failing
    // for want of memory says so instead.
    EXPECT_NE(std::string(e.what()).find("libhdf5: "), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("truncated"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace cbed::shard

namespace cbed::shard {
namespace {

// The samples of epoch 1, in the order drawn; `pause` before each draw lets the reader run ahead.
std::vector<int64_t> drawn_order(const std::shared_ptr<const ShardSet>& shards, int pause_ms) {
  StreamOptions o;
  o.batch_size = 6;
  o.memory_bytes = 30 * 3 * 8 * 8 * sizeof(float);
  o.seed = 11;
  ShardStream stream(shards, o);
  stream.start_epoch(1);
  std::vector<int64_t> order;
  for (;;) {
    std::this_thread::sleep_for(std::chrono::milliseconds(pause_ms));
    auto batch = stream.next();
    if (!batch) break;
    for (int64_t i = 0; i < batch->size(); ++i)
      order.push_back(int64_t(batch->inputs.data<float>()[i * 192]));
  }
  return order;
}

// The ranks of a model-split replica (spatial, tensor, pipeline) each stream the same share and
// must draw the same samples into every batch, however far each rank's reader has run ahead.
TEST(ShardStream, OrderDoesNotDependOnHowFarTheReaderRanAhead) {
  const auto shards = three_shards("stream_order");
  const std::vector<int64_t> eager = drawn_order(shards, 0), patient = drawn_order(shards, 5);
  ASSERT_EQ(eager.size(), 120u);
  EXPECT_EQ(eager, patient);
}

}  // namespace
}  // namespace cbed::shard
