// Optimizers, schedulers and gradient clipping against values PyTorch 1.13 computed
// (tests/optim/fixtures, written by make_fixtures.py).
#include <memory>
#include <string>
#include <vector>

#include "fixtures.h"
#include "testing.h"

using namespace exadnn;
using exadnn::testing::all_close;
using exadnn::testing::tolerance_for;
using exadnn::testing::values;
namespace fx = exadnn::testing::optim_fixtures;

namespace {

std::unique_ptr<optim::Optimizer> make_optimizer(const fx::Case& c, std::vector<Tensor> params) {
  const std::string kind = c.str("opt");
  const double lr = c.num("lr");
  if (kind == "sgd")
    return std::make_unique<optim::SGD>(params, optim::SGDOptions(lr)
                                                    .momentum(c.num("momentum"))
                                                    .dampening(c.num("dampening"))
                                                    .weight_decay(c.num("weight_decay"))
                                                    .nesterov(c.num("nesterov") != 0)
                                                    .maximize(c.num("maximize") != 0));
  if (kind == "adam")
    return std::make_unique<optim::Adam>(params,
                                         optim::AdamOptions(lr)
                                             .betas(c.num("beta1", 0.9), c.num("beta2", 0.999))
                                             .eps(c.num("eps", 1e-8))
                                             .weight_decay(c.num("weight_decay"))
                                             .amsgrad(c.num("amsgrad") != 0)
                                             .maximize(c.num("maximize") != 0));
  if (kind == "adamw") {
    optim::AdamWOptions o(lr);
    o.betas(c.num("beta1", 0.9), c.num("beta2", 0.999))
        .eps(c.num("eps", 1e-8))
        .amsgrad(c.num("amsgrad") != 0)
        .maximize(c.num("maximize") != 0);
    if (c.has("weight_decay")) o.weight_decay(c.num("weight_decay"));  // else AdamW's 1e-2
    return std::make_unique<optim::AdamW>(params, o);
  }
  if (kind == "adagrad")
    return std::make_unique<optim::Adagrad>(
        params, optim::AdagradOptions(lr)
                    .lr_decay(c.num("lr_decay"))
                    .weight_decay(c.num("weight_decay"))
                    .initial_accumulator_value(c.num("initial_accumulator_value"))
                    .eps(c.num("eps", 1e-10))
                    .maximize(c.num("maximize") != 0));
  if (kind == "rmsprop")
    return std::make_unique<optim::RMSprop>(params, optim::RMSpropOptions(lr)
                                                        .alpha(c.num("alpha", 0.99))
                                                        .eps(c.num("eps", 1e-8))
                                                        .weight_decay(c.num("weight_decay"))
                                                        .momentum(c.num("momentum"))
                                                        .centered(c.num("centered") != 0)
                                                        .maximize(c.num("maximize") != 0));
  throw std::runtime_error("unknown optimizer in fixture: " + kind);
}

// Runs every case of optimizers.txt whose optimizer is `kind`; returns how many ran.
int check_optimizer_cases(const std::string& kind) {
  const fx::Fixture f = fx::load_fixture("optimizers.txt");
  int ran = 0;
  for (const fx::Case& c : f.cases) {
    if (c.str("opt") != kind) continue;
    SCOPED_TRACE("case " + c.name);
    ++ran;
    const DType dtype = fx::dtype_of(c);
    std::vector<Tensor> params;
    for (size_t i = 0; i < f.params.size(); ++i) {
      Tensor p = from_vector<double>(f.params[i], f.shapes[i]).to(dtype);
      p.requires_grad_(true);
      params.push_back(p);
    }
    auto opt = make_optimizer(c, params);
    for (int step = 1; step <= 5; ++step) {
      for (size_t i = 0; i < params.size(); ++i) {
        const auto& g = f.grads.at({step, static_cast<int>(i)});
        if (g) {
          params[i].set_grad(from_vector<double>(*g, f.shapes[i]).to(dtype));
        } else {
          params[i].zero_grad();
        }
      }
      opt->step();
      for (size_t i = 0; i < params.size(); ++i) {
        auto it = c.after.find({step, static_cast<int>(i)});
        if (it == c.after.end()) continue;
        EXPECT_TRUE(all_close(params[i], it->second, tolerance_for(dtype)))
            << "parameter " << i << " after step " << step;
      }
    }
    // Parameter 1 had no gradient at step 3: it was skipped.
    EXPECT_EQ(opt->param_step_count(0), 5);
    EXPECT_EQ(opt->param_step_count(1), 4);
  }
  return ran;
}

TEST(OptimReference, SGD) {
  EXPECT_EQ(check_optimizer_cases("sgd"), 7);
}
TEST(OptimReference, Adam) {
  EXPECT_EQ(check_optimizer_cases("adam"), 5);
}
TEST(OptimReference, AdamW) {
  EXPECT_EQ(check_optimizer_cases("adamw"), 3);
}
TEST(OptimReference, Adagrad) {
  EXPECT_EQ(check_optimizer_cases("adagrad"), 3);
}
TEST(OptimReference, RMSprop) {
  EXPECT_EQ(check_optimizer_cases("rmsprop"), 5);
}

std::unique_ptr<optim::LRScheduler> make_scheduler(const fx::Case& c, const std::string& kind,
                                                   optim::Optimizer& opt) {
  if (kind == "step")
    return std::make_unique<optim::StepLR>(opt, static_cast<int64_t>(c.num("step_size")),
                                           c.num("gamma"));
  if (kind == "cosine")
    return std::make_unique<optim::CosineAnnealingLR>(opt, static_cast<int64_t>(c.num("t_max")),
                                                      c.num("eta_min"));
  if (kind == "warmup") {
    std::unique_ptr<optim::LRScheduler> after;
    if (c.has("then")) after = make_scheduler(c, c.str("then"), opt);
    return std::make_unique<optim::LinearWarmup>(opt, static_cast<int64_t>(c.num("warmup_steps")),
                                                 c.num("start_factor"), std::move(after));
  }
  throw std::runtime_error("unknown scheduler in fixture: " + kind);
}

TEST(OptimReference, Schedulers) {
  const fx::Fixture f = fx::load_fixture("schedulers.txt");
  ASSERT_EQ(f.cases.size(), 6u);
  for (const fx::Case& c : f.cases) {
    SCOPED_TRACE("case " + c.name);
    Tensor p = zeros({1}, DType::f64);
    p.requires_grad_(true);
    optim::SGD opt({p}, optim::SGDOptions(c.num("lr")));
    auto sched = make_scheduler(c, c.str("sched"), opt);
    std::vector<double> lrs{opt.lr()};
    for (int s = 0; s < static_cast<int>(c.num("steps")); ++s) {
      opt.step();
      sched->step();
      EXPECT_EQ(sched->last_lr(), opt.lr());
      lrs.push_back(opt.lr());
    }
    EXPECT_TRUE(all_close(from_vector<double>(lrs), c.lrs, tolerance_for(DType::f64)));
    EXPECT_EQ(sched->last_epoch(), static_cast<int64_t>(c.num("steps")));
  }
}

TEST(OptimReference, ClipGradNorm) {
  const fx::Fixture f = fx::load_fixture("clip_grad.txt");
  ASSERT_EQ(f.cases.size(), 4u);
  for (const fx::Case& c : f.cases) {
    SCOPED_TRACE("case " + c.name);
    const DType dtype = fx::dtype_of(c);
    std::vector<Tensor> params;
    for (size_t i = 0; i < f.params.size(); ++i) {
      Tensor p = from_vector<double>(f.params[i], f.shapes[i]).to(dtype);
      p.requires_grad_(true);
      p.set_grad(from_vector<double>(*f.grads.at({1, static_cast<int>(i)}), f.shapes[i]).to(dtype));
      params.push_back(p);
    }
    const double norm = optim::clip_grad_norm(params, c.num("max_norm"));
    EXPECT_TRUE(all_close(scalar_tensor(norm, DType::f64), {c.norm}, tolerance_for(dtype)));
    for (size_t i = 0; i < params.size(); ++i)
      EXPECT_TRUE(
          all_close(params[i].grad(), c.clipped.at(static_cast<int>(i)), tolerance_for(dtype)))
          << "gradient " << i;
  }
}

}  // namespace
