// Spatial parallelism's reads of the shards: a band of each pattern's rows by hyperslab, put on
// the classifiers' log scale with the whole pattern's maximum the shards store (`pattern_max`),
// the same values as the band of the whole scaled pattern; shards without the maxima read whole;
// the stream buffering and reading the band's bytes only.
#include <gtest/gtest.h>
#include <hdf5.h>

#include <cmath>

#include <exadnn/data/height_band.h>

#include "cbed/loader.h"
#include "cbed/pattern_scale.h"
#include "shard_test_util.h"

namespace cbed::shard {
namespace {

using testing::temp_dir;
using testing::write_test_shard;

constexpr int kSize = 8;
constexpr int64_t kSamples = 12;

// Values spanning decades, brightest in the last rows, so a top band's own maximum is far below
// its pattern's (a band scaled by its own maximum would come out wrong); each sample's pattern
// differs from the others' after scaling (the shift by its id, 13 > kSamples).
float pixel(int64_t id, int64_t k) {
  const int64_t row = (k % (kSize * kSize)) / kSize;
  return float(1 + (3 * k + id) % 13) * std::pow(10.0f, float(row) / 2);
}

std::shared_ptr<const ShardSet> shards(const std::string& name, bool keep_maxima = true) {
  const std::string dir = temp_dir(name);
  write_test_shard(dir, Split::train, 0, 0, kSamples, kSize, 4, {225, 194, 62}, pixel);
  if (!keep_maxima) {  // a shard written before `pattern_max` existed
    const std::string path = dir + "/" + shard_file_name(Split::train, 0);
    const hid_t file = H5Fopen(path.c_str(), H5F_ACC_RDWR, H5P_DEFAULT);
    EXPECT_GE(H5Ldelete(file, kPatternMax, H5P_DEFAULT), 0);
    H5Fclose(file);
  }
  return std::make_shared<const ShardSet>(ShardSet::open_split(dir, Split::train));
}

// Every sample's whole stack on the log scale, [N, 3, 8, 8].
exadnn::Tensor whole_scaled(const std::shared_ptr<const ShardSet>& set) {
  std::vector<int64_t> all(kSamples);
  for (int64_t i = 0; i < kSamples; ++i) all[i] = i;
  return ShardDataset(set, Target::space_group, Scale::log).get_batch(all).inputs;
}

std::vector<float> values(const exadnn::Tensor& t) {
  const float* p = t.contiguous().data<float>();
  return std::vector<float>(p, p + t.numel());
}

TEST(ShardBand, DatasetReadsTheBandOnTheWholePatternsScale) {
  const auto set = shards("band_dataset");
  ASSERT_TRUE(set->has_pattern_max());
  const exadnn::data::HeightBand top{0, 4};
  const exadnn::Tensor want = exadnn::data::cut_band(whole_scaled(set), top);
  const auto dataset = std::make_shared<ShardDataset>(set, Target::space_group, Scale::log);
  std::vector<int64_t> all(kSamples);
  for (int64_t i = 0; i < kSamples; ++i) all[i] = i;
  const exadnn::Tensor got = exadnn::data::HeightBandView(dataset, top).get_batch(all).inputs;
  EXPECT_EQ(got.shape(), (exadnn::Shape{kSamples, 3, 4, kSize}));
  EXPECT_EQ(values(got), values(want));
  // The test discriminates: the top band's own maximum is ~100x below its pattern's.
  std::vector<float> raw(3 * 4 * kSize);
  set->read_rows(0, 0, 1, raw.data(), top);
  EXPECT_LT(pattern_max(raw.data(), 4 * kSize), set->pattern_max(0, 0) / 50);
}

TEST(ShardBand, ShardsWithoutMaximaAreReadWholeThenCut) {
  const auto set = shards("band_no_maxima", false);
  EXPECT_FALSE(set->has_pattern_max());
  const exadnn::data::HeightBand bottom{4, 8};
  const auto dataset = std::make_shared<ShardDataset>(set, Target::space_group, Scale::log);
  std::vector<int64_t> some{3, 7};
  const exadnn::Tensor got = exadnn::data::HeightBandView(dataset, bottom).get_batch(some).inputs;
  const exadnn::Tensor cut = exadnn::data::cut_band(whole_scaled(set), bottom);
  std::vector<float> want = values(cut.narrow(0, 3, 1));
  const std::vector<float> second = values(cut.narrow(0, 7, 1));
  want.insert(want.end(), second.begin(), second.end());
  EXPECT_EQ(values(got), want);
}

// The stream's samples of one epoch with `band`, each matched to the sample of the whole scaled
// set whose band it equals; returns the stream's statistics.
StreamStats stream_epoch(const std::shared_ptr<const ShardSet>& set,
                         std::optional<exadnn::data::HeightBand> band, int64_t rows_expected) {
  StreamOptions o;
  o.batch_size = 4;
  o.memory_bytes = 64 << 10;
  o.scale = Scale::log;
  o.band = band;
  ShardStream stream(set, o);
  const exadnn::Tensor whole = whole_scaled(set);
  const exadnn::Tensor cut = band ? exadnn::data::cut_band(whole, *band) : whole;
  std::vector<bool> seen(kSamples, false);
  while (auto batch = stream.next()) {
    EXPECT_EQ(batch->inputs.size(2), rows_expected);
    for (int64_t b = 0; b < batch->size(); ++b) {
      const std::vector<float> sample = values(batch->inputs.narrow(0, b, 1));
      int64_t match = -1;
      for (int64_t i = 0; i < kSamples && rows_expected == cut.size(2); ++i)
        if (values(cut.narrow(0, i, 1)) == sample) match = i;
      EXPECT_GE(match, 0) << "a streamed sample equals no sample's band of the whole scaled set";
      if (match >= 0) seen[match] = true;
    }
  }
  EXPECT_EQ(std::count(seen.begin(), seen.end(), true), kSamples);
  return stream.stats();
}

TEST(ShardBand, StreamBuffersAndReadsOnlyTheBand) {
  const auto set = shards("band_stream");
  const size_t band_sample = 3 * 4 * kSize * sizeof(float);
  const StreamStats stats = stream_epoch(set, exadnn::data::HeightBand{4, 8}, 4);
  EXPECT_EQ(stats.bytes_read, kSamples * band_sample);
  EXPECT_LE(stats.peak_buffered_bytes, kSamples * band_sample);
}

// Spatial ranks stream the band of what one process streams: the same samples in the same order
// (the stream's plan is made for whole patterns).
TEST(ShardBand, BandStreamDrawsWhatTheWholeStreamDraws) {
  const auto set = shards("band_stream_order");
  const exadnn::data::HeightBand bottom{4, 8};
  std::vector<exadnn::Tensor> whole, band;
  for (auto* out : {&whole, &band}) {
    StreamOptions o;
    o.batch_size = 3;
    o.memory_bytes = 8 * 3 * kSize * kSize * sizeof(float);  // 8 whole samples: a shuffle
    o.block_rows = 2;
    o.scale = Scale::log;
    o.seed = 5;
    if (out == &band) o.band = bottom;
    ShardStream stream(set, o);
    stream.start_epoch(2);
    while (auto batch = stream.next()) out->push_back(batch->inputs);
  }
  ASSERT_EQ(whole.size(), band.size());
  for (size_t i = 0; i < whole.size(); ++i)
    EXPECT_EQ(values(band[i]), values(exadnn::data::cut_band(whole[i], bottom))) << "batch " << i;
}

TEST(ShardBand, StreamOfShardsWithoutMaximaReadsWholePatterns) {
  // The DataLoader over the stream cuts the band (tests/data/height_band_test.cpp).
  const auto set = shards("band_stream_no_maxima", false);
  const StreamStats stats = stream_epoch(set, std::nullopt, kSize);
  EXPECT_EQ(stats.bytes_read, kSamples * 3 * kSize * kSize * sizeof(float));
  StreamOptions o;
  o.batch_size = 4;
  o.memory_bytes = 64 << 10;
  o.scale = Scale::log;
  o.band = exadnn::data::HeightBand{0, 4};
  ShardStream stream(set, o);
  EXPECT_EQ(stream.next()->inputs.size(2), kSize);  // whole: no maxima to scale a band with
}

TEST(ShardBand, RefusesRowsOutsideTheHeight) {
  const auto set = shards("band_refusals");
  std::vector<float> out(3 * kSize * kSize);
  EXPECT_THROW(set->read_rows(0, 0, 1, out.data(), exadnn::data::HeightBand{6, 10}), exadnn::Error);
}

}  // namespace
}  // namespace cbed::shard
