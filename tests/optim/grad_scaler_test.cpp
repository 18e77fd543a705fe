// GradScaler: small gradients survive 16-bit backward with scaling, inf/NaN skips the step and
// backs off, the scale grows after the interval, options and checkpoints.
#include <limits>
#include <vector>

#include "exadnn/backend/precision_policy.h"
#include "optim_test_util.h"

using namespace exadnn;
using namespace exadnn::testing::optim_util;
using exadnn::testing::all_close;

namespace {

// The gradient that reaches f32 weight w of loss = 1e-8 · sum(linear(x, w)) computed under an
// fp16 autocast scope: dloss/dy = 1e-8 becomes 0 in fp16 unless the loss is scaled first.
Tensor small_gradient(optim::GradScaler* scaler) {
  Tensor w = ones({1, 1});
  w.requires_grad_(true);
  optim::SGD opt({w}, optim::SGDOptions(0.0));
  Tensor loss;
  {
    precision::Autocast autocast(DType::f16);
    loss = sum(linear(ones({1, 1}), w)) * 1e-8;
  }
  autograd::backward({scaler ? scaler->scale(loss) : loss}, {Tensor()});
  if (scaler) scaler->unscale(opt);
  return w.grad();
}

}  // namespace

TEST(GradScaler, SmallGradientSurvivesWithScalingAndVanishesWithout) {
  const Tensor plain = small_gradient(nullptr);
  EXPECT_EQ(plain.item<double>(), 0.0) << "1e-8 underflows in fp16";
  optim::GradScaler scaler;
  const Tensor scaled = small_gradient(&scaler);
  EXPECT_EQ(scaled.dtype(), DType::f32);
  EXPECT_FALSE(scaler.found_inf());
  // 1e-8 · 2^16 = 6.6e-4 is a normal fp16 number: the gradient is 1e-8 up to fp16 rounding.
  EXPECT_NEAR(scaled.item<double>(), 1e-8, 1e-8 * exadnn::testing::tolerance_for(DType::f16).rtol);
}

TEST(GradScaler, InfSkipsTheStepAndHalvesTheScale) {
  Tensor w = full({3}, 2.0);
  w.requires_grad_(true);
  optim::SGD opt({w}, optim::SGDOptions(0.1));
  optim::GradScaler scaler;
  for (double bad :
       {std::numeric_limits<double>::infinity(), std::numeric_limits<double>::quiet_NaN()}) {
    const double scale = scaler.get_scale();
    w.set_grad(from_vector<double>({1.0, bad, 1.0}, {3}).to(DType::f32));
    EXPECT_FALSE(scaler.step(opt));
    EXPECT_TRUE(scaler.found_inf());
    EXPECT_TRUE(identical(w, full({3}, 2.0))) << "the step was skipped";
    scaler.update();
    EXPECT_EQ(scaler.get_scale(), scale / 2);
    EXPECT_EQ(scaler.growth_tracker(), 0);
  }
  // A clean step then runs, with the gradient unscaled.
  w.set_grad(full({3}, scaler.get_scale()));
  EXPECT_TRUE(scaler.step(opt));
  EXPECT_TRUE(all_close(w, full({3}, 1.9)));
}

TEST(GradScaler, ScaleDoublesAfterTheGrowthInterval) {
  Tensor w = zeros({2});
  w.requires_grad_(true);
  optim::SGD opt({w}, optim::SGDOptions(0.0));
  optim::GradScaler scaler;  // 2^16, growth interval 2000
  EXPECT_EQ(scaler.get_scale(), 65536.0);
  for (int step = 1; step <= 2000; ++step) {
    w.set_grad(ones({2}));
    EXPECT_TRUE(scaler.step(opt));
    scaler.update();
    if (step < 2000) ASSERT_EQ(scaler.get_scale(), 65536.0) << step;
  }
  EXPECT_EQ(scaler.get_scale(), 131072.0);
  EXPECT_EQ(scaler.growth_tracker(), 0);
}

TEST(GradScaler, StateDictRoundTripAndChecks) {
  optim::GradScaler a(optim::GradScalerOptions().init_scale(1024).growth_interval(3));
  Tensor w = zeros({1});
  w.requires_grad_(true);
  optim::SGD opt({w}, optim::SGDOptions(0.0));
  for (int i = 0; i < 2; ++i) {
    w.set_grad(ones({1}));
    a.step(opt);
    a.update();
  }
  optim::GradScaler b;
  b.load_state_dict(a.state_dict());
  EXPECT_EQ(b.get_scale(), 1024.0);
  EXPECT_EQ(b.growth_tracker(), 2);
  StateDict bad;
  bad.insert("scale", scalar_tensor(-1.0, DType::f64));
  bad.insert("growth_tracker", scalar_tensor(0.0, DType::i64));
  EXPECT_EXADNN_ERROR(b.load_state_dict(bad), "GradScaler", "scale -1 is not positive");
  EXPECT_EXADNN_ERROR(b.load_state_dict(StateDict()), "entry 'scale' is missing");
}

TEST(GradScaler, OptionsAndMisuse) {
  EXPECT_EXADNN_ERROR(optim::GradScaler(optim::GradScalerOptions().init_scale(0)), "init_scale");
  EXPECT_EXADNN_ERROR(optim::GradScaler(optim::GradScalerOptions().backoff_factor(1)),
                      "backoff_factor");
  Tensor w = zeros({1});
  w.requires_grad_(true);
  optim::SGD opt({w}, optim::SGDOptions(0.1));
  optim::GradScaler scaler;
  w.set_grad(ones({1}));
  scaler.unscale(opt);
  EXPECT_EXADNN_ERROR(scaler.unscale(opt), "already called");
  // Disabled: losses and steps pass through.
  optim::GradScaler off(optim::GradScalerOptions().enabled(false));
  EXPECT_EQ(off.get_scale(), 1.0);
  const Tensor loss = scalar_tensor(3.0);
  EXPECT_TRUE(identical(off.scale(loss), loss));
}
