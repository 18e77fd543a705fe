// f32 master weights of 16-bit parameters: small updates accumulate in the master while pure
// 16-bit weights lose them, every optimizer's master follows the f32 trajectory bit for bit, and
// checkpoints carry the master.
#include <cmath>
#include <memory>
#include <vector>

#include "optim_test_util.h"

using namespace exadnn;
using namespace exadnn::testing::optim_util;
using exadnn::testing::all_close;

namespace {

// w = 1.0 and 1000 updates of 1e-4 (SGD, lr 1e-4, gradient 1).
Tensor run_small_updates(DType dtype, bool master_weights, std::unique_ptr<optim::SGD>& opt) {
  Tensor w = ones({1}, dtype);
  w.requires_grad_(true);
  opt = std::make_unique<optim::SGD>(std::vector<Tensor>{w}, optim::SGDOptions(1e-4));
  opt->set_master_weights(master_weights);
  for (int step = 0; step < 1000; ++step) {
    w.set_grad(ones({1}, dtype));
    opt->step();
  }
  return w;
}

}  // namespace

TEST(MasterWeights, PureSixteenBitWeightsNeverMove) {
  // 1 - 1e-4 rounds back to 1 in both formats (half an ulp below 1 is 2.4e-4 in f16, 2e-3 in bf16).
  for (DType dt : {DType::f16, DType::bf16}) {
    std::unique_ptr<optim::SGD> opt;
    const Tensor w = run_small_updates(dt, false, opt);
    EXPECT_EQ(w.item<double>(), 1.0) << dtype_name(dt);
    EXPECT_FALSE(opt->master(0).defined());
  }
}

TEST(MasterWeights, F32MasterReachesPointNine) {
  // Any f32 accumulation rounds each of the 1000 steps to the 2^-24 spacing below 1: within
  // 1000 half-ulps (3e-5) of 0.9. (1e-4 is 1677.7 ulps and each step rounds it to 1678, so the
  // f32 master lands at 0.899983, 1.7e-5 from 0.9; only wider accumulation gets closer.)
  const double bound = 1000 * 0.5 * std::ldexp(1.0, -24);
  for (DType dt : {DType::f16, DType::bf16}) {
    std::unique_ptr<optim::SGD> opt;
    const Tensor w = run_small_updates(dt, true, opt);
    ASSERT_TRUE(opt->master(0).defined());
    EXPECT_EQ(opt->master(0).dtype(), DType::f32);
    EXPECT_NEAR(opt->master(0).item<double>(), 0.9, bound) << dtype_name(dt);
    EXPECT_TRUE(identical(w, opt->master(0).to(dt))) << "the parameter is the rounded master";
  }
}

TEST(MasterWeights, EveryOptimizerFollowsTheF32TrajectoryExactly) {
  // The same values (exact in bf16) as an f32 parameter and as a bf16 parameter; the bf16
  // parameter's master must equal the f32 parameter after every step, bit for bit.
  for (const auto& [name, make] : all_optimizers()) {
    Tensor p16 = make_param({7, 5}, 1.0, DType::bf16);
    Tensor p32 = p16.detach().to(DType::f32);
    p32.requires_grad_(true);
    auto o16 = make({p16});
    auto o32 = make({p32});
    for (int step = 0; step < 5; ++step) {
      set_grads({p16}, step);  // bf16 gradients
      p32.set_grad(p16.grad().to(DType::f32));
      o16->step();
      o32->step();
      ASSERT_TRUE(identical(o16->master(0), p32)) << name << ", step " << step;
      ASSERT_TRUE(identical(p16, p32.to(DType::bf16))) << name << ", step " << step;
    }
  }
}

TEST(MasterWeights, StateDictCarriesTheMasterAndF32Buffers) {
  Tensor p = make_param({4}, 2.0, DType::f16);
  optim::Adam a({p}, optim::AdamOptions(1e-2));
  for (int step = 0; step < 3; ++step) {
    set_grads({p}, step);
    a.step();
  }
  const StateDict state = a.state_dict();
  ASSERT_TRUE(state.contains("0.master"));
  EXPECT_EQ(state.at("0.master").dtype(), DType::f32);
  EXPECT_EQ(state.at("0.exp_avg").dtype(), DType::f32);

  // A fresh optimizer over another parameter takes the master and writes the parameter.
  Tensor q = make_param({4}, 5.0, DType::f16);
  optim::Adam b({q}, optim::AdamOptions(1e-2));
  b.load_state_dict(state);
  EXPECT_TRUE(identical(b.master(0), a.master(0)));
  EXPECT_TRUE(identical(q, p));
  for (int step = 3; step < 5; ++step) {
    set_grads({p}, step);
    set_grads({q}, step);
    a.step();
    b.step();
  }
  EXPECT_TRUE(identical(b.master(0), a.master(0))) << "resume is bit-identical";

  // Without master weights the state has no master, and a state with one is refused.
  optim::Adam c({make_param({4}, 5.0, DType::f16)}, optim::AdamOptions(1e-2));
  c.set_master_weights(false);
  EXPECT_FALSE(c.state_dict().contains("0.master"));
  EXPECT_EXADNN_ERROR(c.load_state_dict(state), "unexpected entry '0.master'");
}

TEST(MasterWeights, AcceptsF32GradientsOfSixteenBitParameters) {
  // GradScaler::unscale replaces 16-bit gradients by f32 ones.
  Tensor p = make_param({3}, 0.0, DType::bf16);
  optim::SGD opt({p}, optim::SGDOptions(0.5));
  p.set_grad(full({3}, 1e-6, DType::f32));
  const Tensor before = opt.master(0).clone();
  opt.step();
  EXPECT_TRUE(all_close(opt.master(0), before - 5e-7));
}
