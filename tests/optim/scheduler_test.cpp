// Learning-rate schedulers beyond the PyTorch sequences (reference_test.cpp): argument checks,
// the optimizer they drive, and their state_dict round trip.
#include <memory>
#include <vector>

#include "optim_test_util.h"

using namespace exadnn;
using namespace exadnn::testing::optim_util;

namespace {

std::unique_ptr<optim::SGD> make_sgd(double lr) {
  return std::make_unique<optim::SGD>(std::vector<Tensor>{make_param({3}, 0.0)},
                                      optim::SGDOptions(lr));
}

TEST(Scheduler, ArgumentChecks) {
  auto opt = make_sgd(0.1);
  auto other = make_sgd(0.1);
  EXPECT_EXADNN_ERROR(optim::StepLR(*opt, 0), "optim::StepLR", "invalid step_size 0");
  EXPECT_EXADNN_ERROR(optim::StepLR(*opt, 2, -0.5), "invalid gamma -0.5");
  EXPECT_EXADNN_ERROR(optim::CosineAnnealingLR(*opt, 0), "optim::CosineAnnealingLR",
                      "invalid T_max 0");
  EXPECT_EXADNN_ERROR(optim::CosineAnnealingLR(*opt, 5, -1.0), "invalid eta_min -1");
  EXPECT_EXADNN_ERROR(optim::LinearWarmup(*opt, 0, 0.1), "optim::LinearWarmup",
                      "invalid warmup_steps 0");
  EXPECT_EXADNN_ERROR(optim::LinearWarmup(*opt, 5, 0.0), "invalid start_factor 0");
  EXPECT_EXADNN_ERROR(optim::LinearWarmup(*opt, 5, 1.5), "invalid start_factor 1.5");
  EXPECT_EXADNN_ERROR(optim::LinearWarmup(*opt, 5, 0.1, std::make_unique<optim::StepLR>(*other, 2)),
                      "drives another optimizer");
}

TEST(Scheduler, DrivesTheOptimizer) {
  auto opt = make_sgd(0.1);
  optim::StepLR sched(*opt, 2, 0.5);
  EXPECT_EQ(sched.last_epoch(), 0);
  EXPECT_EQ(sched.base_lr(), 0.1);
  EXPECT_EQ(&sched.optimizer(), opt.get());
  for (int i = 0; i < 4; ++i) sched.step();
  EXPECT_EQ(opt->lr(), 0.025);
  EXPECT_EQ(sched.last_lr(), 0.025);
  // A warm-up starts the optimizer at start_factor·lr as soon as it is made.
  auto opt2 = make_sgd(0.2);
  optim::LinearWarmup warm(*opt2, 4, 0.5);
  EXPECT_EQ(opt2->lr(), 0.1);
  for (int i = 0; i < 10; ++i) warm.step();
  EXPECT_NEAR(opt2->lr(), 0.2, 1e-15);
  EXPECT_EQ(warm.after(), nullptr);
}

// Optimizer and scheduler saved after 4 steps and loaded into fresh ones continue with the same
// learning rates as an uninterrupted run.
TEST(Scheduler, StateDictRoundTrip) {
  auto make = [](optim::Optimizer& o) {
    return std::make_unique<optim::LinearWarmup>(
        o, 3, 0.1, std::make_unique<optim::CosineAnnealingLR>(o, 6, 0.001));
  };
  auto straight_opt = make_sgd(0.1);
  auto straight = make(*straight_opt);
  std::vector<double> expected;
  for (int i = 0; i < 10; ++i) {
    straight->step();
    expected.push_back(straight_opt->lr());
  }

  auto opt = make_sgd(0.1);
  auto sched = make(*opt);
  for (int i = 0; i < 4; ++i) sched->step();
  const StateDict opt_state = opt->state_dict();
  const StateDict sched_state = sched->state_dict();
  EXPECT_TRUE(sched_state.contains("after.last_epoch"));
  EXPECT_EQ(sched_state.at("last_epoch").item<int64_t>(), 4);

  auto opt2 = make_sgd(0.1);
  auto sched2 = make(*opt2);
  opt2->load_state_dict(opt_state);
  sched2->load_state_dict(sched_state);
  EXPECT_EQ(sched2->last_epoch(), 4);
  EXPECT_EQ(opt2->lr(), expected[3]);
  for (int i = 4; i < 10; ++i) {
    sched2->step();
    EXPECT_EQ(opt2->lr(), expected[i]) << "step " << i + 1;
  }
}

TEST(Scheduler, LoadRefusesAnotherSchedulersState) {
  auto opt = make_sgd(0.1);
  optim::LinearWarmup with_after(*opt, 3, 0.1, std::make_unique<optim::StepLR>(*opt, 2));
  optim::LinearWarmup alone(*opt, 3, 0.1);
  EXPECT_EXADNN_ERROR(alone.load_state_dict(with_after.state_dict()), "optim::LinearWarmup",
                      "unexpected entry 'after.last_epoch'");
  EXPECT_EXADNN_ERROR(with_after.load_state_dict(alone.state_dict()),
                      "entry 'after.last_epoch' is missing");
  StateDict bad = alone.state_dict();
  bad.insert("momentum", scalar_tensor(0.9, DType::f64));
  EXPECT_EXADNN_ERROR(alone.load_state_dict(bad), "unexpected entry 'momentum'");
}

}  // namespace
