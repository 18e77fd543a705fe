#include "exadnn/data/distributed_sampler.h"

#include "exadnn/core/error.h"

namespace exadnn::data {

DistributedSampler::DistributedSampler(int rank, int num_replicas)
    : rank_(rank), num_replicas_(num_replicas) {
  EXADNN_CHECK(num_replicas >= 1 && rank >= 0 && rank < num_replicas, "DistributedSampler", "rank ",
               rank, " of ", num_replicas, " replicas is not a valid rank");
}

std::vector<int64_t> DistributedSampler::shard(const std::vector<int64_t>& order) const {
  const int64_t n = shard_size(static_cast<int64_t>(order.size()));
  std::vector<int64_t> mine(static_cast<size_t>(n));
  for (int64_t k = 0; k < n; ++k)
    mine[static_cast<size_t>(k)] = order[static_cast<size_t>(rank_ + k * num_replicas_)];
  return mine;
}

}  // namespace exadnn::data
