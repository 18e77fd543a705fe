// Reading the dataset's HDF5 shards (layout in shard_layout.h): ShardSet opens and checks a
// split's files, ShardDataset is random access for exadnn's DataLoader, and ShardStream is the
// out-of-core loader: a background thread reads blocks of consecutive samples (whole chunks) from
// the shards in a shuffled order into a buffer of bounded size, and batches draw their samples at
// random from that buffer, so samples of different shards mix while only the buffer is in memory.
//
// Reads go through the serial libhdf5 the framework links (the file format is the same as the
// parallel writer's). Debian builds that library thread-safe (`h5cc -showconfig`: Threadsafety
// yes), so the loader's thread may overlap other HDF5 users; the loader's own calls hold one lock,
// which also guards its cache of open files.
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <exadnn/data/batch_stream.h>
#include <exadnn/data/dataset.h>
#include <exadnn/data/height_band.h>

#include "cbed/file_layout.h"
#include "cbed/shard_layout.h"

namespace cbed::shard {

/// What a sample's target is.
enum class Target {
  space_group,     // class space_group - 1 (0..229)
  crystal_system,  // class 0..6
};

/// One opened shard.
struct ShardFile {
  std::string path;
  int64_t samples = 0;
  int chunk_rows = 1;  // samples per chunk of `patterns`
  Split split = Split::train;
  std::vector<std::string> groups;  // format sample_groups: each row's group, in name order
};

/// A split's shard files, checked when opened: each file exists and is a complete HDF5 file of
/// the layout's format (file_layout.h). Generator shards: this format and version, `patterns` is
/// [N, 3, H, W] float32, every label dataset has N rows, crystal systems 0..6 matching their
/// group. Sample groups: every group at the root holds a [3, H, W] float patterns dataset and a
/// space-group attribute. Both: one H x W over all files (and `expected_size` when given), space
/// groups 1..230. Every failure is an Error naming the file (and the row or group and the value
/// for a label). Labels are held in memory; patterns are read on demand.
class ShardSet {
 public:
  explicit ShardSet(std::vector<std::string> paths,
                    std::optional<std::array<int, 2>> expected_size = std::nullopt)
      : ShardSet(std::move(paths), FileLayout::shards(), expected_size) {}
  ShardSet(std::vector<std::string> paths, FileLayout layout,
           std::optional<std::array<int, 2>> expected_size = std::nullopt);
  ~ShardSet();
  ShardSet(ShardSet&&) = default;
  ShardSet& operator=(ShardSet&&) = default;
  /// The files of `split` in `dir` (the layout's pattern for it: cbed_<split>_*.h5 by default),
  /// in name order (Error when there are none).
  static ShardSet open_split(const std::string& dir, Split split,
                             std::optional<std::array<int, 2>> expected_size = std::nullopt) {
    return open_split(dir, split, FileLayout::shards(), expected_size);
  }
  static ShardSet open_split(const std::string& dir, Split split, const FileLayout& layout,
                             std::optional<std::array<int, 2>> expected_size = std::nullopt);

  int64_t size() const { return int64_t(space_group_.size()); }
  int height() const { return height_; }
  int width() const { return width_; }
  const std::vector<ShardFile>& files() const { return files_; }
  const FileLayout& layout() const { return layout_; }
  /// Per sample (in file order, then row order).
  const std::vector<int32_t>& space_groups() const { return space_group_; }
  const std::vector<int32_t>& crystal_systems() const { return crystal_system_; }
  const std::vector<int64_t>& material_ids() const { return material_id_; }
  /// The target class of sample `i`.
  int64_t target(int64_t i, Target t) const;
  /// Global index of row 0 of file `f`.
  int64_t first_of(int f) const { return offsets_[f]; }

  /// Rows [first, first + count) of file `f`'s patterns into `out` (count * 3 * H * W floats);
  /// with `band`, only those rows of each pattern (count * 3 * band.rows() * W floats, by
  /// hyperslab: generator shards only, Error for a file of per-sample groups).
  void read_rows(int f, int64_t first, int64_t count, float* out,
                 std::optional<exadnn::data::HeightBand> band = std::nullopt) const;
  /// Whether every file stores its patterns' largest values (`pattern_max`, shard_layout.h).
  bool has_pattern_max() const { return !pattern_max_.empty(); }
  /// The largest value of pattern `axis` (0..2) of sample `i` (has_pattern_max() only).
  float pattern_max(int64_t i, int axis) const { return pattern_max_[size_t(i * 3 + axis)]; }
  /// (file, row) of global sample `i`.
  std::pair<int, int64_t> locate(int64_t i) const;

 private:
  FileLayout layout_;
  std::vector<ShardFile> files_;
  std::vector<int64_t> offsets_;  // per file, its first global index; back() = size()
  int height_ = 0, width_ = 0;
  std::vector<int32_t> space_group_, crystal_system_;
  std::vector<int64_t> material_id_;
  std::vector<float> pattern_max_;  // [N, 3] when every file has them
  // Per file, its open `patterns` dataset (generator shards) and file (HDF5 ids, opened on the
  // first read and kept, so the chunk index is read once); under the HDF5 lock.
  struct OpenFile {
    int64_t file = -1, patterns = -1;
  };
  mutable std::vector<OpenFile> open_;
};

/// What a sample's patterns are handed out as.
enum class Scale {
  raw,  // the stored intensities
  log,  // each pattern on the classifiers' log scale (pattern_scale.h)
};

/// exadnn Dataset over a ShardSet: inputs f32 [3, H, W], targets i64 [] (the Target class).
class ShardDataset : public exadnn::data::Dataset {
 public:
  ShardDataset(std::shared_ptr<const ShardSet> shards, Target target, Scale scale = Scale::raw);
  int64_t size() const override { return shards_->size(); }
  exadnn::Shape input_shape() const override;
  exadnn::DType input_dtype() const override { return exadnn::DType::f32; }
  exadnn::Shape target_shape() const override { return {}; }
  exadnn::DType target_dtype() const override { return exadnn::DType::i64; }
  void fetch(std::span<const int64_t> indices, const exadnn::Tensor& inputs,
             const exadnn::Tensor& targets) const override;
  /// Only the band's rows of each pattern, by hyperslab, where the shards store each pattern's
  /// largest value (or the scale is raw); otherwise whole patterns, then the band.
  void fetch_band(std::span<const int64_t> indices, exadnn::data::HeightBand band,
                  const exadnn::Tensor& inputs, const exadnn::Tensor& targets) const override;
  /// From the labels in memory (no pattern read).
  exadnn::Tensor get_targets(std::span<const int64_t> indices) const override;

 private:
  std::shared_ptr<const ShardSet> shards_;
  Target target_;
  Scale scale_;
};

struct StreamOptions {
  int64_t batch_size = 32;
  size_t memory_bytes = size_t(256) << 20;  // the shuffle buffer's limit, read-ahead included
  int64_t block_rows = 0;  // samples per read (0: whole chunks, up to 1 MiB and a quarter of
                           // the buffer beside a batch)
  Target target = Target::space_group;
  uint64_t seed = 0;
  int rank = 0, replicas = 1;  // data-parallel: this rank's share of each epoch (ShardStream)
  Scale scale = Scale::raw;    // log: each pattern put on the classifiers' scale as it is read
  // Only these rows of each pattern (spatial parallelism): read alone from generator shards
  // (with Scale::log, from shards that store each pattern's maximum); otherwise whole patterns
  // are read, and a DataLoader over the stream cuts the band.
  std::optional<exadnn::data::HeightBand> band;
};

/// What a ShardStream did so far.
struct StreamStats {
  size_t peak_buffered_bytes = 0;  // most bytes held (buffer + block being read)
  size_t bytes_read = 0;
  int64_t samples = 0;         // samples handed out in batches
  double consumer_wait_s = 0;  // time next() waited for the reader
};

/// The out-of-core loader. Each epoch every shard's blocks are shuffled by (seed, epoch), the same
/// on every rank; with `replicas` data-parallel ranks, rank r reads the r-th of `replicas` equal
/// consecutive runs of samples of that order (N / replicas each; blocks split at the edges), so
/// the ranks read every sample once per epoch (the last N mod replicas are left out) and run the
/// same number of batches.
///
///   ShardStream stream(shards, {.batch_size = 64, .memory_bytes = 64 << 20});
///   for (int e = 0; e < epochs; ++e) {
///     stream.start_epoch(e);
///     while (auto batch = stream.next()) train_step(batch->inputs, batch->targets);
///   }
///
/// Error when memory_bytes cannot hold a batch and a block besides.
class ShardStream : public exadnn::data::BatchStream {
 public:
  ShardStream(std::shared_ptr<const ShardSet> shards, StreamOptions options);
  ~ShardStream() override;
  ShardStream(const ShardStream&) = delete;
  ShardStream& operator=(const ShardStream&) = delete;

  /// Starts epoch `epoch` (its block order depends on (seed, epoch)); ends any epoch under way.
  /// Without a call, the first next() starts epoch 0.
  void start_epoch(int64_t epoch) override;
  /// The next batch (the last one of an epoch may be smaller), or nothing at the epoch's end. A
  /// read error of the background thread is rethrown here.
  std::optional<exadnn::data::Batch> next() override;
  /// Samples (batches) this rank reads every epoch: N / replicas.
  int64_t samples_per_epoch() const;
  int64_t batches_per_epoch() const override;
  StreamStats stats() const;

 private:
  struct State;
  std::unique_ptr<State> state_;
};

}  // namespace cbed::shard
