// ShardedOptimizer (ZeRO stage 1) against one process on the whole batch, its state's size per
// rank, and checkpoints moving between sharded and one-process runs. Runs on 1, 2, 3 and 4 ranks.
#include "exadnn/dist/sharded_optimizer.h"

#include "dist_testing.h"
#include "exadnn/optim/adam.h"

namespace exadnn::dist {
namespace {

using testing::FixedBatch;
using testing::same_weights;

std::unique_ptr<optim::Optimizer> make_adam(std::vector<Tensor> params) {
  return std::make_unique<optim::Adam>(std::move(params), optim::AdamOptions().lr(0.01));
}
std::unique_ptr<optim::Optimizer> make_sgd(std::vector<Tensor> params) {
  return std::make_unique<optim::SGD>(std::move(params), optim::SGDOptions(0.1).momentum(0.9));
}

// `steps` steps of `opt` (one process or sharded) on rows [begin, begin + count) of the batch.
template <class Opt>
void train(nn::Module& model, Opt& opt, int64_t begin, int64_t count, int steps) {
  FixedBatch b;
  for (int s = 0; s < steps; ++s) {
    opt.zero_grad();
    b.loss(model, begin, count).backward();
    opt.step();
  }
}

class ShardedOptimizerTest : public ::testing::TestWithParam<OptimizerFactory> {};

TEST_P(ShardedOptimizerTest, MatchesOneProcessOnTheWholeBatch) {
  Communicator comm = Communicator::world();
  auto reference = testing::small_mlp();
  auto one = GetParam()(reference->parameters());
  train(*reference, *one, 0, 12, 10);

  auto model = testing::small_mlp(comm.rank() == 0 ? 1 : 50 + comm.rank());  // rank 0's is used
  ShardedOptimizer sharded(model->parameters(), comm, GetParam());
  const int64_t rows = 12 / comm.size();
  train(*model, sharded, comm.rank() * rows, rows, 10);
  EXPECT_TRUE(same_weights(*model, *reference, 1e-5));
}

INSTANTIATE_TEST_SUITE_P(Optimizers, ShardedOptimizerTest,
                         ::testing::Values(OptimizerFactory(make_adam), OptimizerFactory(make_sgd)),
                         [](const auto& info) { return info.index == 0 ? "Adam" : "SGD"; });

TEST(ShardedOptimizer, EachRankKeepsItsShareOfTheState) {
  Communicator comm = Communicator::world();
  auto model = testing::small_mlp();
  ShardedOptimizer sharded(model->parameters(), comm, make_adam);
  const int64_t n = model->parameter_count();
  EXPECT_EQ(sharded.total_numel(), n);
  EXPECT_EQ(sharded.shard_numel(), (n + comm.size() - 1) / comm.size());
  EXPECT_EQ(sharded.inner().state(0, "exp_avg").numel(), sharded.shard_numel());
  EXPECT_EQ(sharded.inner().state(0, "exp_avg_sq").numel(), sharded.shard_numel());
}

TEST(ShardedOptimizer, CheckpointsMoveBetweenShardedAndOneProcess) {
  Communicator comm = Communicator::world();
  const int64_t rows = 12 / comm.size();
  auto reference = testing::small_mlp();
  auto one = make_adam(reference->parameters());
  train(*reference, *one, 0, 12, 10);

  // Sharded for 4 steps → one-process layout → one process for 3 steps → sharded for 3 steps.
  auto model = testing::small_mlp();
  StateDict state;
  {
    ShardedOptimizer sharded(model->parameters(), comm, make_adam);
    train(*model, sharded, comm.rank() * rows, rows, 4);
    state = sharded.state_dict();
  }
  auto single = make_adam(model->parameters());
  single->load_state_dict(state);  // the one-process optimizer accepts it as its own
  train(*model, *single, 0, 12, 3);
  ShardedOptimizer resumed(model->parameters(), comm, make_adam);
  resumed.load_state_dict(single->state_dict());
  train(*model, resumed, comm.rank() * rows, rows, 3);
  EXPECT_TRUE(same_weights(*model, *reference, 1e-5));
  EXPECT_EQ(resumed.step_count(), 10);
}

TEST(ShardedOptimizer, WeightsLoadedAfterItWasMadeAreTheOnesUpdated) {
  Communicator comm = Communicator::world();
  auto reference = testing::small_mlp();
  auto one = make_sgd(reference->parameters());
  auto model = testing::small_mlp(7);  // other weights, replaced below (a resumed checkpoint)
  ShardedOptimizer sharded(model->parameters(), comm, make_sgd);
  model->load_state_dict(reference->state_dict());
  train(*reference, *one, 0, 12, 3);
  const int64_t rows = 12 / comm.size();
  train(*model, sharded, comm.rank() * rows, rows, 3);
  EXPECT_TRUE(same_weights(*model, *reference, 1e-5));
}

TEST(ShardedOptimizer, BadInputIsAnError) {
  Communicator comm = Communicator::world();
  auto model = testing::small_mlp();
  ShardedOptimizer sharded(model->parameters(), comm, make_adam);
  StateDict state = sharded.state_dict();
  StateDict wrong;
  for (const auto& [name, t] : state) wrong.insert(name, name == "1.exp_avg" ? zeros({3}) : t);
  EXPECT_THROW(sharded.load_state_dict(wrong), Error);
  std::vector<Tensor> doubles{zeros({4}, TensorOptions().dtype(DType::f64).requires_grad())};
  EXPECT_THROW(ShardedOptimizer(doubles, comm, make_adam), Error);
}

}  // namespace
}  // namespace exadnn::dist
