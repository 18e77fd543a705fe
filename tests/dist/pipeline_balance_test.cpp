// Pipeline stage cuts by measured time: the even cut against every cut (brute force), the layer
// timing leaving the model as it was, and PipelineParallel's balance_by() cutting alike on every
// rank and training like one process. Runs on 1, 2, 3 and 4 ranks.
#include "exadnn/dist/pipeline_balance.h"

#include <functional>
#include <limits>

#include "exadnn/dist/pipeline.h"
#include "exadnn/dist/process_grid.h"
#include "exadnn/nn/batch_norm.h"

#include "dist_testing.h"

namespace exadnn::dist {
namespace {

using exadnn::testing::values;
using testing::FixedBatch;

// The largest stage sum of `costs` cut at `cuts` (first layers of stages 1..).
double largest_stage(const std::vector<double>& costs, const std::vector<size_t>& cuts) {
  std::vector<size_t> edges{0};
  edges.insert(edges.end(), cuts.begin(), cuts.end());
  edges.push_back(costs.size());
  double worst = 0;
  for (size_t k = 0; k + 1 < edges.size(); ++k) {
    double sum = 0;
    for (size_t i = edges[k]; i < edges[k + 1]; ++i) sum += costs[i];
    worst = std::max(worst, sum);
  }
  return worst;
}

// The smallest largest-stage sum over every cut into `parts` non-empty stages.
double best_by_brute_force(const std::vector<double>& costs, int parts) {
  double best = std::numeric_limits<double>::infinity();
  std::vector<size_t> cuts;
  std::function<void(size_t)> place = [&](size_t from) {
    if (cuts.size() == static_cast<size_t>(parts - 1)) {
      best = std::min(best, largest_stage(costs, cuts));
      return;
    }
    for (size_t c = from; c < costs.size(); ++c) {
      cuts.push_back(c);
      place(c + 1);
      cuts.pop_back();
    }
  };
  place(1);
  return best;
}

TEST(PipelineBalance, EvenCutIsTheBestOfEveryCut) {
  EXPECT_EQ(cut_evenly({1, 1, 1, 1}, 2), (std::vector<size_t>{2}));
  EXPECT_EQ(cut_evenly({5, 1, 1, 1, 1, 1}, 2), (std::vector<size_t>{1}));
  EXPECT_EQ(cut_evenly({1, 1, 1, 1, 8}, 2), (std::vector<size_t>{4}));
  EXPECT_EQ(cut_evenly({3, 3}, 1), (std::vector<size_t>{}));
  Generator gen(3);
  for (int trial = 0; trial < 40; ++trial) {
    const int n = 3 + trial % 6, parts = 1 + trial % std::min(n, 4);
    std::vector<double> costs = to_vector<double>(rand({n}, TensorOptions(DType::f64), &gen));
    const std::vector<size_t> cuts = cut_evenly(costs, parts);
    ASSERT_EQ(cuts.size(), static_cast<size_t>(parts - 1));
    for (size_t k = 0; k < cuts.size(); ++k)
      EXPECT_TRUE(cuts[k] > (k ? cuts[k - 1] : 0) && cuts[k] < costs.size());  // none empty
    EXPECT_DOUBLE_EQ(largest_stage(costs, cuts), best_by_brute_force(costs, parts));
  }
  EXPECT_THROW(cut_evenly({1, 2}, 3), Error);
  EXPECT_THROW(cut_evenly({1, -2, 3}, 2), Error);
}

TEST(PipelineBalance, MeasuringLeavesTheModelAsItWas) {
  manual_seed(4);
  nn::Sequential model{std::make_shared<nn::Linear>(6, 8), std::make_shared<nn::BatchNorm1d>(8),
                       std::make_shared<nn::Tanh>(), std::make_shared<nn::Linear>(8, 3)};
  model.train();
  std::vector<Tensor> params = model.parameters();
  params[0].set_grad(full(params[0].shape(), 0.25));  // a gradient accumulated before
  const StateDict before = model.state_dict();        // batch norm's running statistics too
  FixedBatch b;
  const std::vector<double> costs = measure_layer_costs(model, b.x, 2);
  ASSERT_EQ(costs.size(), 4u);
  for (double c : costs) EXPECT_GT(c, 0);
  EXPECT_TRUE(model.is_training());
  EXPECT_EQ(values(params[0].grad()), values(full(params[0].shape(), 0.25)));
  for (size_t i = 1; i < params.size(); ++i) EXPECT_FALSE(params[i].grad().defined()) << i;
  for (const auto& [name, t] : before) EXPECT_EQ(values(model.state_dict().at(name)), values(t));
  EXPECT_THROW(measure_layer_costs(model, Tensor()), Error);
}

TEST(PipelineBalance, MeasuredCutIsEveryRanksAndTrainsLikeOneProcess) {
  Communicator comm = Communicator::world();
  // Six layers whose costs differ by far more than timing noise: the 256-wide ones dominate.
  const auto model = [] {
    manual_seed(5);
    return std::make_shared<nn::Sequential>(std::initializer_list<std::shared_ptr<nn::Module>>{
        std::make_shared<nn::Linear>(6, 8), std::make_shared<nn::Tanh>(),
        std::make_shared<nn::Linear>(8, 256), std::make_shared<nn::Tanh>(),
        std::make_shared<nn::Linear>(256, 256), std::make_shared<nn::Linear>(256, 3)});
  };
  FixedBatch b;
  PipelineParallel pipe(*model(), comm, PipelineOptions().micro_batches(2).balance_by(b.x));
  ASSERT_EQ(pipe.cuts().size(), static_cast<size_t>(comm.size() + 1));
  ASSERT_EQ(pipe.layer_costs().size(), 6u);
  // Every rank holds the same cut and the same mean costs (rank 0's, broadcast).
  std::vector<double> mine(pipe.cuts().begin(), pipe.cuts().end());
  mine.insert(mine.end(), pipe.layer_costs().begin(), pipe.layer_costs().end());
  Tensor root = from_vector<double>(mine);
  comm.broadcast(root, 0).wait();
  EXPECT_EQ(to_vector<double>(root), mine);
  // The cut is the even one for those costs.
  EXPECT_EQ(std::vector<size_t>(pipe.cuts().begin() + 1, pipe.cuts().end() - 1),
            cut_evenly(pipe.layer_costs(), comm.size()));
  // And the pipeline trains as one process does.
  auto reference = model();
  optim::SGD ref_opt(reference->parameters(), optim::SGDOptions(0.05));
  std::unique_ptr<optim::SGD> opt;
  if (!pipe.stage().parameters().empty())
    opt = std::make_unique<optim::SGD>(pipe.stage().parameters(), optim::SGDOptions(0.05));
  const auto ce = [](const Tensor& out, const Tensor& target) {
    return nn::cross_entropy(out, target);
  };
  for (int s = 0; s < 3; ++s) {
    ref_opt.zero_grad();
    Tensor loss = b.loss(*reference);
    loss.backward();
    ref_opt.step();
    if (opt) opt->zero_grad();
    const double got = pipe.forward_backward(b.x, b.y, ce);
    if (opt) opt->step();
    EXPECT_NEAR(got, loss.item<double>(), 1e-5) << "step " << s;
  }
}

// Two pipelines side by side (a data × pipeline grid, 4 ranks): each replica measuring for itself
// could cut differently by timing noise, and their gradients, averaged parameter for parameter,
// would then belong to different layers. measured_over(world) makes the whole job cut as one.
TEST(PipelineBalance, ReplicasMeasuredOverTheWorldCutAlike) {
  Communicator world = Communicator::world();
  if (world.size() % 2 != 0) GTEST_SKIP() << "needs an even number of ranks";
  ProcessGrid grid(world, {world.size() / 2, 2, 1});
  manual_seed(5);
  nn::Sequential model(std::initializer_list<std::shared_ptr<nn::Module>>{
      std::make_shared<nn::Linear>(6, 64), std::make_shared<nn::Tanh>(),
      std::make_shared<nn::Linear>(64, 64), std::make_shared<nn::Tanh>(),
      std::make_shared<nn::Linear>(64, 3)});
  FixedBatch b;
  PipelineParallel pipe(model, grid.pipeline(),
                        PipelineOptions().micro_batches(2).balance_by(b.x).measured_over(world));
  std::vector<double> mine(pipe.cuts().begin(), pipe.cuts().end());
  mine.insert(mine.end(), pipe.layer_costs().begin(), pipe.layer_costs().end());
  Tensor root = from_vector<double>(mine);
  world.broadcast(root, 0).wait();
  EXPECT_EQ(to_vector<double>(root), mine) << "this rank's cut or costs differ from rank 0's";
}

}  // namespace
}  // namespace exadnn::dist
