// PipelineParallel against one process on the whole batch (both schedules, with and without
// recomputation), its activation memory per schedule, its per-micro-batch timings, the
// one-process state layout, the layouts it refuses, and the replay of a schedule from its costs.
// Runs on 1, 2, 3 and 4 ranks.
#include "exadnn/dist/pipeline.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <numeric>
#include <thread>
#include <tuple>

#include "exadnn/autograd/function.h"

#include "exadnn/dist/pipeline_schedule.h"

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
  // Every micro-batch's forward and backward was timed, and they add up to the stage's totals.
  const PipelineStats& stats = pipe.last_stats();
  ASSERT_EQ(stats.forward_each.size(), static_cast<size_t>(micro_batches));
  ASSERT_EQ(stats.backward_each.size(), static_cast<size_t>(micro_batches));
  for (int64_t i = 0; i < micro_batches; ++i) {
    EXPECT_GT(stats.forward_each[i], 0) << i;
    EXPECT_GT(stats.backward_each[i], 0) << i;
  }
  EXPECT_NEAR(std::accumulate(stats.forward_each.begin(), stats.forward_each.end(), 0.0) +
                  std::accumulate(stats.backward_each.begin(), stats.backward_each.end(), 0.0),
              stats.busy_seconds, 1e-9);
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

// Equal stages (forward 1, backward 2 per micro-batch): every stage idles the bubble
// (p − 1)/(m + p − 1) of a step lasting (m + p − 1)(f + b), under both schedules.
TEST(Pipeline, ReplayOfEqualStagesGivesTheBubble) {
  for (int p = 1; p <= 4; ++p)
    for (int64_t m : {1, 4, 8})
      for (auto schedule : {PipelineSchedule::gpipe, PipelineSchedule::one_f_one_b}) {
        const std::vector<std::vector<double>> f(p, std::vector<double>(m, 1.0)),
            b(p, std::vector<double>(m, 2.0));
        const PipelineReplay r = replay_pipeline(schedule, f, b);
        EXPECT_DOUBLE_EQ(r.makespan, 3.0 * static_cast<double>(m + p - 1)) << p << " " << m;
        for (int s = 0; s < p; ++s)
          EXPECT_NEAR(r.idle_fraction[s], (p - 1.0) / static_cast<double>(m + p - 1), 1e-12)
              << "p " << p << " m " << m << " stage " << s;
      }
}

// y = x · scale, sleeping `ms` in forward and 2 · `ms` in backward: a stage of these costs exactly
// what the bubble formula assumes (backward twice forward, every micro-batch alike) whatever else
// the machine runs, so what a real step idles beyond the formula is the pipeline's own doing.
struct SleepyScale : autograd::Function {
  explicit SleepyScale(double ms) : ms(ms) {}
  std::vector<Tensor> forward(autograd::FunctionContext& ctx,
                              const std::vector<Tensor>& in) override {
    std::this_thread::sleep_for(std::chrono::duration<double, std::milli>(ms));
    ctx.save_for_backward({in[0], in[1]});
    return {in[0] * in[1].item<double>()};
  }
  std::vector<Tensor> backward(autograd::FunctionContext& ctx,
                               const std::vector<Tensor>& g) override {
    std::this_thread::sleep_for(std::chrono::duration<double, std::milli>(2 * ms));
    const Tensor& x = ctx.saved()[0];
    const Tensor gx = g[0].contiguous(), xc = x.contiguous();
    double dot = 0;
    for (int64_t i = 0; i < xc.numel(); ++i) dot += gx.data<float>()[i] * xc.data<float>()[i];
    return {g[0] * ctx.saved()[1].item<double>(), from_vector<float>({static_cast<float>(dot)})};
  }
  double ms;
};

class SleepyLayer : public nn::Module {
 public:
  explicit SleepyLayer(double ms) : ms_(ms) {
    scale = from_vector<float>({1.0f});
    register_parameter("scale", &scale);
  }
  Tensor forward(const Tensor& x) override {
    return autograd::apply<SleepyScale>({x, scale}, ms_)[0];
  }
  std::string name() const override { return "SleepyLayer"; }
  Tensor scale;

 private:
  double ms_;
};

// The check on a real step: with equal stages every stage idles the bubble
// (p − 1)/(m + p − 1) within 10 % (GPipe and 1F1B). A stage is one SleepyLayer of 100 ms forward,
// 200 ms backward per micro-batch; m = 4. Each step starts on a barrier and a stage's idle is
// 1 − its busy time / the step's makespan (the longest stage's wall), as the bubble formula
// counts it; a stage's own `idle_fraction` counts against its own wall, which leaves out the
// tail it does not wait for when it finishes first. What a step idles beyond the bubble is a few
// ms per operation (the messages, the sleeps' overshoot, the scheduler): 0.0-0.2 % of the bubble
// on 2-4 ranks (one stage 2.7 % under it, its own sleeps overshooting). Other programs' ranks on
// the same cores wake ours late and only add idle (a CI run with the 3-rank tests beside the 2-rank
// one read 1.43x the bubble for 1F1B's last stage in one step): so the step that idled least is the
// pipeline's own figure (a schedule that idles too much does so in every step), and CTest runs
// the Pipeline suite alone (RUN_SERIAL).
TEST(Pipeline, EqualStagesIdleTheBubbleWithinTenPercent) {
  Communicator comm = Communicator::world();
  const int p = comm.size();
  if (p == 1) GTEST_SKIP() << "one stage has no bubble";
  const int64_t m = 4;
  nn::Sequential model;
  for (int s = 0; s < p; ++s) model.push_back(std::make_shared<SleepyLayer>(100.0));
  FixedBatch b;
  const Tensor x = b.x.narrow(0, 0, 8), y = b.y.narrow(0, 0, 8);
  const auto loss = [](const Tensor& out, const Tensor& target) {
    return nn::cross_entropy(out.narrow(1, 0, 3), target);
  };
  const double bubble = (p - 1.0) / static_cast<double>(m + p - 1);
  for (auto schedule : {PipelineSchedule::gpipe, PipelineSchedule::one_f_one_b}) {
    PipelineParallel pipe(model, comm, PipelineOptions().micro_batches(m).schedule(schedule));
    std::vector<double> idle;
    for (int step = 0; step < 3; ++step) {
      comm.barrier().wait();  // every stage starts its clock together
      pipe.forward_backward(x, y, loss);
      const PipelineStats& stats = pipe.last_stats();
      Tensor makespan = from_vector<double>({stats.wall_seconds});
      comm.allreduce_blocking(makespan, ReduceOp::max);
      idle.push_back(1.0 - stats.busy_seconds / makespan.data<double>()[0]);
    }
    const double least = *std::min_element(idle.begin(), idle.end());
    EXPECT_NEAR(least / bubble, 1.0, 0.10)
        << to_string(schedule) << ", stage " << comm.rank() << " of " << p << ": idle " << least
        << " against the bubble " << bubble;
    std::printf(
        "%s, %d stages, %lld micro-batches: stage %d idle %.4f (steps %.4f %.4f %.4f), "
        "bubble %.4f (%.3fx)\n",
        to_string(schedule), p, static_cast<long long>(m), comm.rank(), least, idle[0], idle[1],
        idle[2], bubble, least / bubble);
  }
}

// Two micro-batches on two stages, the second stage's forward twice as long (worked by hand):
// stage 0 runs F0 [0, 1], F1 [1, 2]; stage 1 F0 [1, 3], then (GPipe) F1 [3, 5], B0 [5, 6],
// B1 [6, 7] or (1F1B) B0 [3, 4], F1 [4, 6], B1 [6, 7]; stage 0's backwards end at 8 either way.
TEST(Pipeline, ReplayWaitsForTheSlowerStage) {
  const std::vector<std::vector<double>> f = {{1, 1}, {2, 2}}, b = {{1, 1}, {1, 1}};
  for (auto schedule : {PipelineSchedule::gpipe, PipelineSchedule::one_f_one_b}) {
    const PipelineReplay r = replay_pipeline(schedule, f, b);
    EXPECT_DOUBLE_EQ(r.makespan, 8.0);
    EXPECT_DOUBLE_EQ(r.idle_fraction[0], 0.5);   // 4 of 8 busy
    EXPECT_DOUBLE_EQ(r.idle_fraction[1], 0.25);  // 6 of 8 busy
  }
  EXPECT_THROW(replay_pipeline(PipelineSchedule::gpipe, f, {{1, 1}, {1}}), Error);
}

// The orders PipelineParallel runs: GPipe all forwards then all backwards; 1F1B fills the pipe
// with p − s − 1 forwards, then alternates; each micro-batch once each way.
TEST(Pipeline, ScheduleOrdersRunEveryMicroBatchOnceEachWay) {
  auto text = [](const std::vector<PipelineOp>& ops) {
    std::string t;
    for (const PipelineOp& op : ops) t += (op.forward ? "F" : "B") + std::to_string(op.micro_batch);
    return t;
  };
  EXPECT_EQ(text(pipeline_order(PipelineSchedule::gpipe, 0, 2, 3)), "F0F1F2B0B1B2");
  EXPECT_EQ(text(pipeline_order(PipelineSchedule::one_f_one_b, 0, 3, 4)), "F0F1F2B0F3B1B2B3");
  EXPECT_EQ(text(pipeline_order(PipelineSchedule::one_f_one_b, 2, 3, 4)), "F0B0F1B1F2B2F3B3");
  EXPECT_EQ(text(pipeline_order(PipelineSchedule::one_f_one_b, 0, 4, 2)), "F0F1B0B1");
}

}  // namespace
}  // namespace exadnn::dist
