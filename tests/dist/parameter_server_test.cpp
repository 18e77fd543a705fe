// ParameterServer: synchronous mode equals averaged allreduce (= one process on the union of the
// workers' shards); asynchronous (Downpour) mode trains; bad configurations are refused.
#include "exadnn/dist/parameter_server.h"

#include "dist_testing.h"

namespace exadnn::dist {
namespace {

using exadnn::testing::values;

std::shared_ptr<nn::Sequential> mlp() {
  return testing::small_mlp(3);
}
struct FixedBatch : testing::FixedBatch {
  FixedBatch() : testing::FixedBatch(11) {}
};
Tensor loss_on(nn::Module& model, const FixedBatch& b, int64_t begin, int64_t count) {
  return b.loss(model, begin, count);
}

std::unique_ptr<optim::Optimizer> sgd(std::vector<Tensor> params) {
  return std::make_unique<optim::SGD>(std::move(params), optim::SGDOptions(0.1).momentum(0.9));
}

TEST(ParameterServer, SynchronousModeMatchesAveragedAllreduce) {
  Communicator comm = Communicator::world();
  if (comm.size() < 2) GTEST_SKIP() << "needs 2 ranks";
  const int servers = comm.size() == 4 ? 2 : 1;
  auto model = mlp();
  ParameterServer ps(*model, comm, sgd, ParameterServerOptions().servers(servers));
  const int workers = ps.num_workers();
  const int64_t shard = 12 / workers;
  FixedBatch b;
  constexpr int kSteps = 6;
  if (ps.is_server()) {
    ps.serve();
    return;
  }
  for (int s = 0; s < kSteps; ++s) {
    for (Tensor p : model->parameters()) p.zero_grad();
    loss_on(*model, b, ps.group().rank() * shard, shard).backward();
    ps.step();
  }
  ps.finish();
  // One process on the whole batch with the same optimizer.
  auto reference = mlp();
  optim::SGD opt(reference->parameters(), optim::SGDOptions(0.1).momentum(0.9));
  for (int s = 0; s < kSteps; ++s) {
    opt.zero_grad();
    loss_on(*reference, b, 0, 12).backward();
    opt.step();
  }
  const auto mine = model->parameters(), ref = reference->parameters();
  for (size_t i = 0; i < mine.size(); ++i)
    EXPECT_TRUE(exadnn::testing::all_close(mine[i], ref[i])) << "parameter " << i;
}

TEST(ParameterServer, AsynchronousModeTrains) {
  Communicator comm = Communicator::world();
  if (comm.size() < 2) GTEST_SKIP() << "needs 2 ranks";
  auto model = mlp();
  // Plain SGD: momentum amplifies the staleness of asynchronous updates.
  auto plain_sgd = [](std::vector<Tensor> params) -> std::unique_ptr<optim::Optimizer> {
    return std::make_unique<optim::SGD>(std::move(params), optim::SGDOptions(0.2));
  };
  ParameterServer ps(
      *model, comm, plain_sgd,
      ParameterServerOptions().servers(1).asynchronous().push_every(2).pull_every(3));
  FixedBatch b;
  if (ps.is_server()) {
    ps.serve();
    return;
  }
  const double before = loss_on(*model, b, 0, 12).item<float>();
  for (int s = 0; s < 100; ++s) {  // every worker on the whole batch: only staleness differs
    for (Tensor p : model->parameters()) p.zero_grad();
    loss_on(*model, b, 0, 12).backward();
    ps.step();
  }
  ps.finish();
  const double after = loss_on(*model, b, 0, 12).item<float>();
  EXPECT_LT(after, 0.6 * before) << "loss " << before << " -> " << after;
}

TEST(ParameterServer, NeedsAWorkerAndAServer) {
  Communicator comm = Communicator::world();
  auto model = mlp();
  EXPECT_EXADNN_ERROR(
      ParameterServer(*model, comm, sgd, ParameterServerOptions().servers(comm.size())),
      "needs 1 <= servers < ranks");
}

}  // namespace
}  // namespace exadnn::dist
