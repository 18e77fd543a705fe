// DistributedSampler and DataLoaderOptions::distributed: disjoint, equal, reshuffled shards.
#include "exadnn/data/distributed_sampler.h"

#include <set>

#include "testing.h"

namespace exadnn::data {
namespace {

TensorDataset numbered(int64_t n) {
  return TensorDataset(arange(0, static_cast<double>(n)).reshape({n, 1}),
                       arange(0, static_cast<double>(n)));
}

TEST(DistributedSampler, ShardsAreDisjointEqualAndCoverAllButTheRemainder) {
  for (int replicas : {1, 2, 3, 4}) {
    std::set<int64_t> seen;
    for (int r = 0; r < replicas; ++r) {
      DataLoader loader(
          numbered(10),
          DataLoaderOptions().batch_size(2).shuffle(true).seed(5).distributed(r, replicas));
      const auto order = loader.epoch_order(0);
      EXPECT_EQ(static_cast<int64_t>(order.size()), 10 / replicas);
      EXPECT_EQ(loader.batches_per_epoch(), (10 / replicas + 1) / 2);
      for (int64_t i : order) EXPECT_TRUE(seen.insert(i).second) << "index " << i << " twice";
    }
    EXPECT_EQ(static_cast<int64_t>(seen.size()), 10 / replicas * replicas);
  }
}

TEST(DistributedSampler, ReshufflesEveryEpochFromTheSharedSeed) {
  DataLoader a(numbered(100), DataLoaderOptions().shuffle(true).seed(3).distributed(1, 4));
  DataLoader b(numbered(100), DataLoaderOptions().shuffle(true).seed(3).distributed(1, 4));
  EXPECT_EQ(a.epoch_order(0), b.epoch_order(0));
  EXPECT_NE(a.epoch_order(0), a.epoch_order(1));
  // The shard is the rank's stride of the whole-dataset order of the same seed.
  DataLoader whole(numbered(100), DataLoaderOptions().shuffle(true).seed(3));
  const auto all = whole.epoch_order(1), mine = a.epoch_order(1);
  for (size_t k = 0; k < mine.size(); ++k) EXPECT_EQ(mine[k], all[1 + 4 * k]);
}

TEST(DistributedSampler, BadRankIsAnError) {
  EXPECT_EXADNN_ERROR(DistributedSampler(2, 2), "rank 2 of 2");
  EXPECT_EXADNN_ERROR(DistributedSampler(0, 0), "replicas");
}

}  // namespace
}  // namespace exadnn::data
