// ParameterServer: synchronous mode equals averaged allreduce (= one process on the union of the
// workers' shards); asynchronous (Downpour) mode trains, and synchronize() hands every worker all
// workers' updates; the servers' optimizer state gathers
// into one optimizer's layout and loads back (a resumed run continues as an uninterrupted one);
// bad configurations are refused.
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

// SGD without momentum at rate `lr`, as the servers' update rule.
OptimizerFactory plain_sgd(double lr) {
  return [lr](std::vector<Tensor> params) -> std::unique_ptr<optim::Optimizer> {
    return std::make_unique<optim::SGD>(std::move(params), optim::SGDOptions(lr));
  };
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
  ParameterServer ps(
      *model, comm, plain_sgd(0.2),
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

std::unique_ptr<optim::Optimizer> adam(std::vector<Tensor> params) {
  return std::make_unique<optim::Adam>(std::move(params), optim::AdamOptions(0.01));
}

// `steps` steps of every worker, each on its share of the fixed batch.
void train_workers(ParameterServer& ps, nn::Module& model, int steps) {
  const FixedBatch b;
  const int64_t shard = 12 / ps.num_workers();
  for (int s = 0; s < steps; ++s) {
    for (Tensor p : model.parameters()) p.zero_grad();
    loss_on(model, b, ps.group().rank() * shard, shard).backward();
    ps.step();
  }
}

std::vector<Tensor> snapshot(nn::Module& model) {
  std::vector<Tensor> out;
  for (const Tensor& p : model.parameters()) out.push_back(p.detach().clone());
  return out;
}

// 1 server, and (with 3 or more ranks) as many servers as leave one worker: shards of the state.
std::vector<int> server_counts(const Communicator& comm) {
  if (comm.size() < 3) return {1};
  return {1, comm.size() - 1};
}

// Downpour's synchronize(): workers that never pull (pull_every beyond the run) hold their
// starting weights until they synchronize; then every worker holds the servers' parameters after
// all workers' pushes — here init − lr · K · (gradient of the whole batch at init), since every
// push is a shard's gradient at init divided by W — and finish() changes nothing more.
TEST(ParameterServer, AsynchronousSynchronizeGivesEveryWorkerEveryWorkersUpdates) {
  Communicator comm = Communicator::world();
  if (comm.size() < 2) GTEST_SKIP() << "needs 2 ranks";
  auto model = mlp();
  ParameterServer ps(*model, comm, plain_sgd(0.1),
                     ParameterServerOptions().servers(1).asynchronous().pull_every(1000));
  if (ps.is_server()) {
    ps.serve();
    return;
  }
  constexpr int kSteps = 4;
  const std::vector<Tensor> start = snapshot(*model);
  train_workers(ps, *model, kSteps);
  const std::vector<Tensor> before = snapshot(*model);
  ps.synchronize();
  const std::vector<Tensor> synced = snapshot(*model);
  ps.finish();
  auto reference = mlp();  // the same starting weights (small_mlp is seeded)
  loss_on(*reference, FixedBatch(), 0, 12).backward();
  const auto mine = model->parameters(), ref = reference->parameters();
  for (size_t i = 0; i < mine.size(); ++i) {
    EXPECT_TRUE(exadnn::testing::all_close(before[i], start[i])) << "parameter " << i;
    const Tensor expected = ref[i].detach() - ref[i].grad() * (0.1 * kSteps);
    EXPECT_TRUE(exadnn::testing::all_close(synced[i], expected)) << "parameter " << i;
    EXPECT_EQ(values(mine[i]), values(synced[i])) << "parameter " << i;
  }
}

// Synchronous: after K steps the gathered state is what one optimizer has after K steps on the
// whole batch (same keys, order and values); loaded into a fresh parameter server over the same
// weights, M more steps end exactly where K + M uninterrupted steps do.
TEST(ParameterServer, GatheredStateIsOneOptimizersAndResumesExactly) {
  Communicator comm = Communicator::world();
  if (comm.size() < 2) GTEST_SKIP() << "needs 2 ranks";
  constexpr int kBefore = 4, kAfter = 3;
  for (const auto& [name, factory] : std::vector<std::pair<std::string, OptimizerFactory>>{
           {"SGD with momentum", sgd}, {"Adam", adam}})
    for (int servers : server_counts(comm)) {
      SCOPED_TRACE(name + ", " + std::to_string(servers) + " servers");
      auto model = mlp();
      StateDict gathered;
      std::vector<Tensor> halfway, uninterrupted;
      {
        ParameterServer ps(*model, comm, factory, ParameterServerOptions().servers(servers));
        if (ps.is_server()) {
          ps.serve();
        } else {
          train_workers(ps, *model, kBefore);
          gathered = ps.gather_optimizer_state();
          halfway = snapshot(*model);
          train_workers(ps, *model, kAfter);
          ps.finish();
          uninterrupted = snapshot(*model);
        }
      }
      if (comm.rank() == 0) {
        auto reference = mlp();
        const auto opt = factory(reference->parameters());
        const FixedBatch b;
        for (int s = 0; s < kBefore; ++s) {
          opt->zero_grad();
          loss_on(*reference, b, 0, 12).backward();
          opt->step();
        }
        const StateDict expected = opt->state_dict();
        ASSERT_EQ(gathered.size(), expected.size());
        for (size_t i = 0; i < expected.size(); ++i) {
          const auto& [key, t] = expected.entries()[i];
          EXPECT_EQ(gathered.entries()[i].first, key);
          EXPECT_TRUE(exadnn::testing::all_close(gathered.at(key), t)) << key;
        }
        const auto ref = reference->parameters();
        for (size_t i = 0; i < ref.size(); ++i)
          EXPECT_TRUE(exadnn::testing::all_close(halfway[i], ref[i])) << "parameter " << i;
      }
      // Resume: rank 0 holds the weights and the state of step kBefore.
      auto resumed = mlp();
      if (comm.rank() == 0) {
        NoGradGuard no_grad;
        const auto params = resumed->parameters();
        for (size_t i = 0; i < params.size(); ++i) copy_(params[i], halfway[i]);
      }
      ParameterServer ps(*resumed, comm, factory, ParameterServerOptions().servers(servers));
      ps.load_optimizer_state(gathered);
      if (ps.is_server()) {
        ps.serve();
        continue;
      }
      train_workers(ps, *resumed, kAfter);
      ps.finish();
      const auto params = resumed->parameters();
      for (size_t i = 0; i < params.size(); ++i)
        EXPECT_EQ(values(params[i]), values(uninterrupted[i])) << "parameter " << i;
    }
}

// Asynchronous: the gather waits for every worker's pushes (so each server applied the same
// ones: "step" counts them) and leaves every worker with the servers' parameters; loaded into a
// new parameter server, the counts continue.
TEST(ParameterServer, AsynchronousStateGathersAndLoads) {
  Communicator comm = Communicator::world();
  if (comm.size() < 2) GTEST_SKIP() << "needs 2 ranks";
  for (int servers : server_counts(comm)) {
    SCOPED_TRACE(std::to_string(servers) + " servers");
    const auto options =
        ParameterServerOptions().servers(servers).asynchronous().push_every(2).pull_every(3);
    auto model = mlp();
    ParameterServer ps(*model, comm, sgd, options);
    const int workers = ps.num_workers();
    StateDict gathered;
    if (ps.is_server()) {
      ps.serve();
    } else {
      train_workers(ps, *model, 5);  // 2 full pushes and 1 step accumulated, pushed by the gather
      gathered = ps.gather_optimizer_state();
      // Every worker holds the servers' parameters now: the same ones.
      for (const Tensor& p : model->parameters()) {
        Tensor mine = p.detach().clone(), first = p.detach().clone();
        ps.group().broadcast(first, 0).wait();
        EXPECT_EQ(values(mine), values(first));
      }
      ps.finish();
    }
    if (comm.rank() == 0) {
      EXPECT_EQ(gathered.at("step").item<int64_t>(), 3 * workers);
      EXPECT_EQ(gathered.at("0.step").item<int64_t>(), 3 * workers);
      EXPECT_TRUE(gathered.contains("3.momentum_buffer"));
    }
    ParameterServer again(*model, comm, sgd, options);
    again.load_optimizer_state(gathered);
    if (again.is_server()) {
      EXPECT_EQ(again.optimizer()->step_count(), 3 * workers);
      again.serve();
      EXPECT_EQ(again.optimizer()->step_count(), 4 * workers);
      continue;
    }
    train_workers(again, *model, 2);
    again.finish();
  }
}

TEST(ParameterServer, OptimizerStateThatDoesNotFitIsRefused) {
  Communicator comm = Communicator::world();
  if (comm.size() < 2) GTEST_SKIP() << "needs 2 ranks";
  auto model = mlp();
  StateDict momentum;  // SGD's state, offered to Adam servers
  if (comm.rank() == 0) momentum = sgd(model->parameters())->state_dict();
  ParameterServer ps(*model, comm, adam, ParameterServerOptions().servers(1));
  if (comm.rank() == 0)
    EXPECT_EXADNN_ERROR(ps.load_optimizer_state(momentum), "cannot load the servers' optimizer",
                        "unexpected entry '0.momentum_buffer'");
  else
    EXPECT_EXADNN_ERROR(ps.load_optimizer_state(momentum), "rank 0 refused");
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
