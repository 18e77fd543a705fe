// `exadnn train` from the out-of-core ShardStream (data.stream: {buffer_mb: N}): one epoch
// streamed through the Trainer visits every training sample once, and a bad buffer size is
// refused naming the key.
#include <gtest/gtest.h>

#include <exadnn/train/trainer.h>

#include <string>

#include "cbed/loader.h"
#include "shard_test_util.h"

namespace cbed::shard {
namespace {

using testing::error_of;
using testing::temp_dir;
using testing::write_test_shard;

// Three train shards of 20 samples (8 x 8, 4 a chunk) and a test shard of 6.
std::string small_shards(const std::string& name) {
  const std::string dir = temp_dir(name);
  for (int s = 0; s < 3; ++s) write_test_shard(dir, Split::train, s, 20 * s, 20, 8, 4);
  write_test_shard(dir, Split::test, 0, 60, 6, 8, 4);
  return dir;
}

exadnn::train::TrainConfig config(const std::string& dir, const std::string& stream) {
  return exadnn::train::parse_config("data: {dataset: cbed-crystal-system, path: " + dir +
                                         ", batch_size: 8, stream: " + stream +
                                         "}\n"
                                         "model: [flatten, {linear: {out: 7}}]\n"
                                         "loss: cross_entropy\n"
                                         "optimizer: {name: sgd, lr: 0.01}\n"
                                         "epochs: 1\n",
                                     "stream.yaml");
}

TEST(ShardStreamTraining, OneStreamedEpochTrainsOnEverySample) {
  const std::string dir = small_shards("stream_train");
  exadnn::train::Trainer trainer(config(dir, "{buffer_mb: 1}"));
  ASSERT_TRUE(trainer.data().stream != nullptr);  // batches from the ShardStream
  int64_t examples = 0, steps = 0;
  trainer.on_step([&](const exadnn::train::StepEvent& s) {
    examples += s.examples;
    ++steps;
  });
  trainer.fit();
  EXPECT_EQ(examples, 60);  // the 3 shards' 60 samples, as the loader by index reads them
  EXPECT_EQ(steps, 8);      // 7 batches of 8 and one of 4
  EXPECT_EQ(trainer.history().size(), 1u);
}

TEST(ShardStreamTraining, BadBufferSizesAreRefusedNamingTheKey) {
  const std::string dir = small_shards("stream_train_bad");
  for (const char* bad : {"{buffer_mb: 0}", "{buffer_mb: -3}", "{buffer_mb: lots}", "{}"}) {
    const std::string e = error_of([&] { config(dir, bad); });
    EXPECT_NE(e.find("data.stream"), std::string::npos) << bad << ": " << e;
  }
  EXPECT_NE(error_of([&] {
              config(dir, "{buffer_mb: 4, size: 2}");
            }).find("unknown key 'size' in data.stream"),
            std::string::npos);
  // 1 MiB holds 1365 samples of 768 bytes; 64 x 64 stacks (48 KiB) only 21, less than a batch
  // of 32 and a block of 4.
  const std::string big = temp_dir("stream_train_big");
  write_test_shard(big, Split::train, 0, 0, 40, 64, 4);
  write_test_shard(big, Split::test, 0, 40, 4, 64, 4);
  exadnn::train::TrainConfig c = config(big, "{buffer_mb: 1}");
  c.data.batch_size = 32;
  const std::string e = error_of([&] { exadnn::train::Trainer trainer(c); });
  EXPECT_NE(e.find("data.stream.buffer_mb = 1 is too small"), std::string::npos) << e;
  EXPECT_NE(e.find("holds 21 samples"), std::string::npos) << e;
}

TEST(ShardStreamTraining, ShuffleOffCannotStream) {
  const std::string dir = small_shards("stream_train_noshuffle");
  exadnn::train::TrainConfig c = config(dir, "{buffer_mb: 1}");
  c.data.shuffle = false;
  const std::string e = error_of([&] { exadnn::train::Trainer trainer(c); });
  EXPECT_NE(e.find("'shuffle: false' cannot hold"), std::string::npos) << e;
}

}  // namespace
}  // namespace cbed::shard
