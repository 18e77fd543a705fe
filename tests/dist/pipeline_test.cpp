// PipelineParallel against one process on the whole batch (both schedules, with and without
// recomputation), its activation memory per schedule, the one-process state layout, and the layouts
// it refuses. Runs on 1, 2, 3 and 4 ranks.
#include "exadnn/dist/pipeline.h"

#include <tuple>

#include "dist_testing.h"

namespace exadnn::dist {
namespace {

using exadnn::testing::values;
using testing::FixedBatch;

// 6 → 16 → 16 → 3 with tanh: five layers, enough for four stages.
std::shared_ptr<nn::Sequential> deep_mlp(uint64_t seed = 1) {
  manual_seed(seed);
  return std::make_shared<nn::Sequential>(std::initializer_list<std::shared_ptr<nn::Module>>{
      std::make_shared<nn::Linear>(6, 16), std::make_shared<nn::Tanh>(),
      std::make_shared<nn::Linear>(16, 16), std::make_shared<nn::Tanh>(),
      std::make_shared<nn::Linear>(16, 3)});
}

Tensor cross_entropy_loss(const Tensor& out, const Tensor& target) {
  return nn::cross_entropy(out, target);
}

// (schedule, recompute, micro-batches)
using Layout = std::tuple<PipelineSchedule, bool, int64_t>;
class PipelineTest : public ::testing::TestWithParam<Layout> {};

TEST_P(PipelineTest, TrainsLikeOneProcessOnTheWholeBatch) {
  const auto [schedule, recompute, micro_batches] = GetParam();
  Communicator comm = Communicator::world();
  FixedBatch b;
  auto reference = deep_mlp();
  optim::SGD ref_opt(reference->parameters(), optim::SGDOptions(0.1).momentum(0.9));
  std::vector<double> ref_losses;
  for (int s = 0; s < 10; ++s) {
    ref_opt.zero_grad();
    Tensor loss = b.loss(*reference);
    loss.backward();
    ref_opt.step();
    ref_losses.push_back(loss.item<double>());
  }

  PipelineParallel pipe(
      *deep_mlp(), comm,
      PipelineOptions().schedule(schedule).recompute(recompute).micro_batches(micro_batches));
  // A stage of activations only has nothing to optimise.
  std::unique_ptr<optim::SGD> opt;
  if (!pipe.stage().parameters().empty())
    opt = std::make_unique<optim::SGD>(pipe.stage().parameters(),
                                       optim::SGDOptions(0.1).momentum(0.9));
  for (int s = 0; s < 10; ++s) {
    if (opt) opt->zero_grad();
    const double loss = pipe.forward_backward(b.x, b.y, cross_entropy_loss);
    if (opt) opt->step();
    EXPECT_NEAR(loss, ref_losses[s], 1e-5 * std::max(1.0, ref_losses[s])) << "step " << s;
  }
  const StateDict full = pipe.full_state_dict();
  for (const auto& [name, t] : reference->state_dict()) {
    const auto got = values(full.at(name)), want = values(t);
    for (size_t k = 0; k < want.size(); ++k) EXPECT_NEAR(got[k], want[k], 1e-5) << name;
  }
  // Activations kept at once: all m for GPipe, at most p − stage for 1F1B.
  const int64_t live = pipe.last_stats().max_live_activations;
  if (schedule == PipelineSchedule::gpipe)
    EXPECT_EQ(live, micro_batches);
  else
    EXPECT_LE(live, std::min<int64_t>(micro_batches, comm.size() - comm.rank()));
  const auto out = values(pipe.forward(b.x)), want = values((*reference)(b.x));
  for (size_t k = 0; k < want.size(); ++k) EXPECT_NEAR(out[k], want[k], 1e-5);
}

INSTANTIATE_TEST_SUITE_P(Schedules, PipelineTest,
                         ::testing::Values(Layout{PipelineSchedule::gpipe, false, 4},
                                           Layout{PipelineSchedule::one_f_one_b, false, 4},
                                           Layout{PipelineSchedule::one_f_one_b, true, 6},
                                           Layout{PipelineSchedule::gpipe, true, 1}),
                         [](const auto& info) {
                           return std::string(std::get<0>(info.param) == PipelineSchedule::gpipe
                                                  ? "GPipe"
                                                  : "OneFOneB") +
                                  (std::get<1>(info.param) ? "Recompute" : "") + "M" +
                                  std::to_string(std::get<2>(info.param));
                         });

TEST(Pipeline, StagesCoverTheModelAndStateMovesToOneProcess) {
  Communicator comm = Communicator::world();
  PipelineParallel pipe(*deep_mlp(), comm);
  EXPECT_LT(pipe.first_layer(), pipe.end_layer());
  if (comm.rank() == 0) EXPECT_EQ(pipe.first_layer(), 0u);
  if (comm.rank() == comm.size() - 1) EXPECT_EQ(pipe.end_layer(), 5u);
  auto other = deep_mlp(42);  // a different start: the loaded state must replace it
  other->load_state_dict(pipe.full_state_dict());
  auto reference = deep_mlp();
  EXPECT_TRUE(testing::same_weights(*other, *reference, 0));
  PipelineParallel restored(*deep_mlp(42), comm);
  restored.load_full_state_dict(reference->state_dict());
  FixedBatch b;
  EXPECT_EQ(values(restored.forward(b.x)), values((*reference)(b.x)));
}

TEST(Pipeline, LayoutsThatDoNotFitAreErrorsOnEveryRank) {
  Communicator comm = Communicator::world();
  EXPECT_THROW(PipelineParallel(*deep_mlp(), comm, PipelineOptions().micro_batches(0)), Error);
  PipelineParallel pipe(*deep_mlp(), comm, PipelineOptions().micro_batches(5));
  FixedBatch b;  // 12 samples do not split into 5 micro-batches
  EXPECT_THROW(pipe.forward_backward(b.x, b.y, cross_entropy_loss), Error);
  EXPECT_THROW(parse_pipeline_schedule("interleaved"), Error);
  if (comm.size() > 1) {
    nn::Sequential one_layer{std::make_shared<nn::Linear>(6, 3)};
    EXPECT_THROW(PipelineParallel(one_layer, comm), Error);
    std::vector<size_t> bad(static_cast<size_t>(comm.size() - 1), 1);  // stage 2.. empty
    if (comm.size() > 2)
      EXPECT_THROW(PipelineParallel(*deep_mlp(), comm, PipelineOptions().boundaries(bad)), Error);
  }
  comm.barrier().wait();  // nobody is left waiting in a message
}

}  // namespace
}  // namespace exadnn::dist
