// DistributedSampler: the share of each epoch that one rank of a data-parallel job visits.
//
// Every rank shuffles the whole dataset with the same seed (so all agree on the epoch's order)
// and keeps every num_replicas-th index starting at its rank: disjoint shards, reshuffled each
// epoch. The last dataset_size % num_replicas indices of the order are left out, so every rank
// runs the same number of batches (a rank with one more batch would wait forever in its
// allreduce). Use it through DataLoaderOptions::distributed(rank, num_replicas).
#pragma once

#include <cstdint>
#include <vector>

namespace exadnn::data {

/// Rank `rank`'s shard of an epoch order among `num_replicas` ranks.
class DistributedSampler {
 public:
  DistributedSampler(int rank, int num_replicas);

  /// Examples per rank and epoch for a dataset of `dataset_size` examples.
  int64_t shard_size(int64_t dataset_size) const { return dataset_size / num_replicas_; }
  /// order[rank], order[rank + num_replicas], ... (shard_size(order.size()) of them).
  std::vector<int64_t> shard(const std::vector<int64_t>& order) const;

  int rank() const { return rank_; }
  int num_replicas() const { return num_replicas_; }

 private:
  int rank_;
  int num_replicas_;
};

}  // namespace exadnn::data
