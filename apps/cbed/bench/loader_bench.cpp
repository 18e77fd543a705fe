// The shard loader's speed against the file system's: a dataset of 3 x 128 x 128 float32 stacks in
// 4 shards (one sample per chunk, uncompressed) read (1) as plain files with read(2) in 4 MiB
// blocks, (2) by ShardStream with a memory limit of a quarter of the dataset (the out-of-core
// case; its throughput per quarter of the epoch shows whether it stays flat), (3) by ShardDataset
// through exadnn's DataLoader (shuffled random access, prefetch 2). Each is timed from the page
// cache (warm) and after posix_fadvise(DONTNEED) has dropped the files' pages (cold, as far as
// the kernel allows). MB/s counts pattern bytes (10^6 bytes).
//   build/apps/cbed/exadnn_cbed_loader_bench [samples=768] [dir=/tmp/cbed_loader_bench]
#include <exadnn/data/data_loader.h>
#include <fcntl.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>

#include "cbed/loader.h"
#include "cbed/shard_writer.h"

namespace {

using namespace cbed::shard;
using Clock = std::chrono::steady_clock;
constexpr int kSize = 128, kShards = 4;

double since(Clock::time_point t0) {
  return std::chrono::duration<double>(Clock::now() - t0).count();
}

void write_dataset(const std::string& dir, int64_t samples) {
  std::filesystem::create_directories(dir);
  for (int s = 0; s < kShards; ++s) {
    const auto [first, end] = rank_rows(samples, s, kShards);
    ShardHeader h;
    h.shard = s;
    h.shards_in_split = kShards;
    h.height = h.width = kSize;
    ShardRows rows;
    rows.patterns.assign(size_t(end - first) * 3 * kSize * kSize, 0.5f);
    for (int64_t i = first; i < end; ++i) {
      SampleLabels l;
      l.space_group = 1 + int(i % 2);  // P1 and P-1, both triclinic
      l.material_id = i;
      rows.labels.push_back(l);
    }
    write_shard(MPI_COMM_NULL, dir + "/" + shard_file_name(Split::train, s), h, rows);
  }
}

void drop_cache(const ShardSet& set) {
  for (const ShardFile& f : set.files()) {
    const int fd = open(f.path.c_str(), O_RDONLY);
    fdatasync(fd);
    posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
    close(fd);
  }
}

double plain_read(const ShardSet& set) {
  std::vector<char> block(4 << 20);
  size_t bytes = 0;
  const auto t0 = Clock::now();
  for (const ShardFile& f : set.files()) {
    const int fd = open(f.path.c_str(), O_RDONLY);
    for (ssize_t n; (n = read(fd, block.data(), block.size())) > 0;) bytes += size_t(n);
    close(fd);
  }
  return bytes / since(t0) / 1e6;
}

double stream_read(const std::shared_ptr<const ShardSet>& set, size_t memory, bool print) {
  StreamOptions o;
  o.batch_size = 32;
  o.memory_bytes = memory;
  ShardStream stream(set, o);
  const size_t sample = size_t(3) * kSize * kSize * sizeof(float);
  const auto t0 = Clock::now();
  auto quarter_start = t0;
  int64_t samples = 0, quarter = 0;
  double quarters[4] = {};
  while (auto b = stream.next()) {
    samples += b->size();
    if (samples * 4 >= (quarter + 1) * set->size() && quarter < 4) {
      quarters[quarter++] = double(set->size()) / 4 * sample / since(quarter_start) / 1e6;
      quarter_start = Clock::now();
    }
  }
  const double rate = double(samples) * sample / since(t0) / 1e6;
  if (print)
    std::printf(
        "  per quarter of the epoch: %.0f %.0f %.0f %.0f MB/s; peak buffer %.1f MB of "
        "%.1f MB allowed; batches waited %.3f s in all\n",
        quarters[0], quarters[1], quarters[2], quarters[3],
        stream.stats().peak_buffered_bytes / 1e6, memory / 1e6, stream.stats().consumer_wait_s);
  return rate;
}

double dataset_read(const std::shared_ptr<const ShardSet>& set) {
  exadnn::data::DataLoader loader(std::make_shared<ShardDataset>(set, Target::space_group),
                                  exadnn::data::DataLoaderOptions().batch_size(32).shuffle(true));
  const auto t0 = Clock::now();
  int64_t samples = 0;
  for (const exadnn::data::Batch& b : loader) samples += b.size();
  return double(samples) * 3 * kSize * kSize * sizeof(float) / since(t0) / 1e6;
}

}  // namespace

int main(int argc, char** argv) {
  const int64_t samples = argc > 1 ? std::atoll(argv[1]) : 768;
  const std::string dir = argc > 2 ? argv[2] : "/tmp/cbed_loader_bench";
  std::filesystem::remove_all(dir);
  write_dataset(dir, samples);
  auto set = std::make_shared<const ShardSet>(ShardSet::open_split(dir, Split::train));
  const double mb = double(samples) * 3 * kSize * kSize * 4 / 1e6;
  const size_t memory = size_t(mb * 1e6 / 4);
  std::printf(
      "dataset: %lld samples of 3 x %d x %d float32 in %d shards, %.1f MB; stream memory "
      "limit %.1f MB (a quarter)\n",
      (long long)samples, kSize, kSize, kShards, mb, memory / 1e6);
  std::printf("%-34s %12s %12s\n", "reader", "warm MB/s", "cold MB/s");
  plain_read(*set);  // into the page cache
  const double plain_warm = plain_read(*set);
  drop_cache(*set);
  const double plain_cold = plain_read(*set);
  std::printf("%-34s %12.0f %12.0f\n", "plain read(2), 4 MiB blocks", plain_warm, plain_cold);
  const double stream_warm = stream_read(set, memory, false);
  drop_cache(*set);
  const double stream_cold = stream_read(set, memory, true);
  std::printf("%-34s %12.0f %12.0f\n", "ShardStream (HDF5, 1/4 in memory)", stream_warm,
              stream_cold);
  const double dataset_warm = dataset_read(set);
  drop_cache(*set);
  const double dataset_cold = dataset_read(set);
  std::printf("%-34s %12.0f %12.0f\n", "ShardDataset + DataLoader (HDF5)", dataset_warm,
              dataset_cold);
  std::filesystem::remove_all(dir);
}
