// The Optimizer contract: parameter checks, skipping parameters without a gradient, zero_grad,
// learning rate, the state_dict round trip (bit-identical resume) and refusal of a mismatching
// state, option checks, strided parameters, and dtypes without a kernel.
#include <memory>
#include <string>
#include <vector>

#include "optim_test_util.h"

using namespace exadnn;
using namespace exadnn::testing::optim_util;
using exadnn::testing::values;

namespace {

std::vector<Tensor> two_params(DType dtype = DType::f64) {
  return {make_param({3, 5}, 0.1, dtype), make_param({7}, 2.0, dtype)};
}

std::vector<std::string> names(const StateDict& s) {
  std::vector<std::string> out;
  for (const auto& [name, t] : s) out.push_back(name);
  return out;
}

TEST(Optimizer, StateDictLayout) {
  std::vector<Tensor> params = two_params();
  optim::Adam adam(params, optim::AdamOptions(1e-3).amsgrad(true));
  const StateDict s = adam.state_dict();
  EXPECT_EQ(names(s), (std::vector<std::string>{"step", "lr", "0.step", "0.exp_avg", "0.exp_avg_sq",
                                                "0.max_exp_avg_sq", "1.step", "1.exp_avg",
                                                "1.exp_avg_sq", "1.max_exp_avg_sq"}));
  EXPECT_EQ(s.at("step").dim(), 0);
  EXPECT_EQ(s.at("0.step").dim(), 0);
  EXPECT_EQ(s.at("lr").item<double>(), 1e-3);
  EXPECT_EQ(s.at("1.exp_avg").shape(), Shape({7}));

  optim::SGD sgd(params, optim::SGDOptions(0.1).momentum(0.9));
  EXPECT_EQ(names(sgd.state_dict()),
            (std::vector<std::string>{"step", "lr", "0.step", "0.momentum_buffer", "1.step",
                                      "1.momentum_buffer"}));
  optim::SGD plain(params, optim::SGDOptions(0.1));
  EXPECT_EQ(names(plain.state_dict()),
            (std::vector<std::string>{"step", "lr", "0.step", "1.step"}));
  optim::RMSprop rms(params, optim::RMSpropOptions().centered(true).momentum(0.5));
  EXPECT_EQ(names(rms.state_dict().with_prefix_removed("0.")),
            (std::vector<std::string>{"step", "square_avg", "momentum_buffer", "grad_avg"}));
  optim::Adagrad ada(params, optim::AdagradOptions().initial_accumulator_value(0.25));
  EXPECT_EQ(values(ada.state(1, "sum")), std::vector<double>(7, 0.25));
}

TEST(Optimizer, StateDictIsASnapshot) {
  std::vector<Tensor> params = two_params();
  optim::SGD opt(params, optim::SGDOptions(0.1).momentum(0.9));
  set_grads(params, 1);
  opt.step();
  const StateDict saved = opt.state_dict();
  const std::vector<double> before = values(saved.at("0.momentum_buffer"));
  set_grads(params, 2);
  opt.step();
  EXPECT_EQ(values(saved.at("0.momentum_buffer")), before);
  EXPECT_EQ(saved.at("step").item<int64_t>(), 1);
  EXPECT_EQ(opt.state_dict().at("step").item<int64_t>(), 2);
}

// Save after 3 steps, load into a fresh optimizer over fresh copies of the parameters, run 2 more:
// bit-identical to 5 straight steps. Also for f32 and with a parameter above the parallel grain.
TEST(Optimizer, StateDictRoundTripResumesBitIdentically) {
  for (DType dtype : {DType::f64, DType::f32}) {
    for (const auto& [name, make] : all_optimizers()) {
      SCOPED_TRACE(name + std::string(" ") + dtype_name(dtype));
      auto params_of = [&] {
        return std::vector<Tensor>{make_param({3, 5}, 0.1, dtype), make_param({40000}, 2.0, dtype)};
      };
      std::vector<Tensor> straight = params_of();
      auto a = make(straight);
      for (int s = 1; s <= 5; ++s) {
        set_grads(straight, s);
        a->step();
      }

      std::vector<Tensor> first = params_of();
      auto b = make(first);
      for (int s = 1; s <= 3; ++s) {
        set_grads(first, s);
        b->step();
      }
      const StateDict saved = b->state_dict();

      std::vector<Tensor> resumed;  // the parameters as a model checkpoint would restore them
      for (const Tensor& p : first) {
        Tensor copy = p.detach().clone();
        copy.requires_grad_(true);
        resumed.push_back(copy);
      }
      auto c = make(resumed);
      c->load_state_dict(saved);
      EXPECT_EQ(c->step_count(), 3);
      EXPECT_EQ(c->param_step_count(1), 3);
      for (int s = 4; s <= 5; ++s) {
        set_grads(resumed, s);
        c->step();
      }
      for (size_t i = 0; i < straight.size(); ++i)
        EXPECT_TRUE(identical(resumed[i], straight[i])) << "parameter " << i;
      const StateDict sa = a->state_dict(), sc = c->state_dict();
      ASSERT_EQ(names(sa), names(sc));
      for (const auto& [entry, t] : sa) EXPECT_TRUE(identical(sc.at(entry), t)) << entry;
    }
  }
}

TEST(Optimizer, LoadRefusesAnotherOptimizersState) {
  std::vector<Tensor> params = two_params();
  optim::SGD sgd(params, optim::SGDOptions(0.1).momentum(0.9));
  optim::Adam adam(params);
  EXPECT_EXADNN_ERROR(adam.load_state_dict(sgd.state_dict()), "optim::Adam",
                      "unexpected entry '0.momentum_buffer'");
  // A plain SGD (no momentum) state lacks the buffers of a momentum SGD.
  optim::SGD plain(params, optim::SGDOptions(0.1));
  EXPECT_EXADNN_ERROR(sgd.load_state_dict(plain.state_dict()), "optim::SGD",
                      "entry '0.momentum_buffer' is missing");
}

TEST(Optimizer, LoadRefusesAnotherModelsState) {
  optim::Adam a(two_params());
  // Same number of parameters, parameter 1 of another shape.
  optim::Adam b({make_param({3, 5}, 0.1), make_param({8}, 2.0)});
  EXPECT_EXADNN_ERROR(a.load_state_dict(b.state_dict()), "entry '1.exp_avg' has shape [8]",
                      "parameter 1 has shape [7]");
  // Fewer parameters: the first entry of the missing one is named.
  optim::Adam c({make_param({3, 5}, 0.1)});
  EXPECT_EXADNN_ERROR(a.load_state_dict(c.state_dict()), "entry '1.step' is missing");
  // More parameters.
  EXPECT_EXADNN_ERROR(c.load_state_dict(a.state_dict()), "unexpected entry '1.step'");
  // Another dtype.
  optim::Adam d(two_params(DType::f32));
  EXPECT_EXADNN_ERROR(a.load_state_dict(d.state_dict()), "entry '0.exp_avg' has dtype f32");
  // A malformed counter.
  StateDict s = a.state_dict();
  s.set("0.step", from_vector<double>({1, 2}));
  EXPECT_EXADNN_ERROR(a.load_state_dict(s), "entry '0.step' must be a 0-d i64 tensor");
  // A rate stored as an integer (a hand-edited or foreign file) is refused, not truncated.
  StateDict lr_as_integer = a.state_dict();
  lr_as_integer.set("lr", scalar_tensor(1, DType::i64));
  EXPECT_EXADNN_ERROR(a.load_state_dict(lr_as_integer), "entry 'lr' must be a 0-d f64 tensor",
                      "got i64");
}

TEST(Optimizer, RefusedLoadChangesNothing) {
  std::vector<Tensor> params = two_params();
  optim::Adam a(params);
  set_grads(params, 1);
  a.step();
  const StateDict before = a.state_dict();
  StateDict bad = a.state_dict();
  fill_(bad.at("0.exp_avg"), 7.0);
  bad.set("lr", scalar_tensor(0.5, DType::f64));
  bad.set("1.exp_avg_sq", zeros({6}, DType::f64));  // the mismatch comes after the good entries
  EXPECT_EXADNN_ERROR(a.load_state_dict(bad), "'1.exp_avg_sq'");
  EXPECT_EQ(a.lr(), 1e-3);
  EXPECT_EQ(values(a.state(0, "exp_avg")), values(before.at("0.exp_avg")));
}

TEST(Optimizer, ParametersWithoutGradientAreSkipped) {
  for (const auto& [name, make] : all_optimizers()) {
    SCOPED_TRACE(name);
    std::vector<Tensor> params = two_params();
    const std::vector<double> frozen = values(params[1]);
    auto opt = make(params);
    for (int s = 1; s <= 3; ++s) {
      set_grads({params[0]}, s);  // parameter 1 never gets a gradient
      opt->step();
    }
    EXPECT_EQ(values(params[1]), frozen);
    EXPECT_NE(values(params[0]), values(make_param({3, 5}, 0.1)));
    EXPECT_EQ(opt->step_count(), 3);
    EXPECT_EQ(opt->param_step_count(0), 3);
    EXPECT_EQ(opt->param_step_count(1), 0);
    EXPECT_EQ(opt->state_dict().at("1.step").item<int64_t>(), 0);
  }
}

TEST(Optimizer, ZeroGradDropsGradients) {
  std::vector<Tensor> params = two_params();
  optim::SGD opt(params, optim::SGDOptions(0.1));
  set_grads(params, 1);
  ASSERT_TRUE(params[0].grad().defined());
  opt.zero_grad();
  EXPECT_FALSE(params[0].grad().defined());
  EXPECT_FALSE(params[1].grad().defined());
  const std::vector<double> before = values(params[0]);
  opt.step();  // nothing to do
  EXPECT_EQ(values(params[0]), before);
}

TEST(Optimizer, StepRunsWithoutRecordingAndWorksWithBackward) {
  Tensor w = make_param({4}, 0.3);
  optim::SGD opt({w}, optim::SGDOptions(0.1).momentum(0.9));
  for (int s = 0; s < 3; ++s) {
    opt.zero_grad();
    Tensor loss = sum(w * w);
    loss.backward();
    opt.step();  // in-place update of a leaf that requires grad: allowed inside step()
  }
  EXPECT_TRUE(w.is_leaf());
  EXPECT_TRUE(w.requires_grad());
  for (double v : values(w)) EXPECT_LT(std::fabs(v), 1.0);
}

TEST(Optimizer, LearningRate) {
  optim::Adam opt(two_params(), optim::AdamOptions(0.01));
  EXPECT_EQ(opt.lr(), 0.01);
  EXPECT_EQ(opt.initial_lr(), 0.01);
  opt.set_lr(0.5);
  EXPECT_EQ(opt.lr(), 0.5);
  EXPECT_EQ(opt.initial_lr(), 0.01);
  EXPECT_EQ(opt.state_dict().at("lr").item<double>(), 0.5);
  EXPECT_EXADNN_ERROR(opt.set_lr(-1.0), "optim::Adam", "invalid learning rate -1");
}

TEST(Optimizer, ParameterChecks) {
  EXPECT_EXADNN_ERROR(optim::SGD({}, optim::SGDOptions(0.1)), "optim::SGD", "empty parameter list");
  Tensor no_grad = zeros({3}, DType::f64);
  EXPECT_EXADNN_ERROR(optim::SGD({make_param({2}, 0), no_grad}, optim::SGDOptions(0.1)),
                      "parameter 1", "does not require grad");
  Tensor leaf = make_param({2}, 0);
  Tensor derived = leaf * 2.0;
  EXPECT_EXADNN_ERROR(optim::Adam({derived}), "optim::Adam", "parameter 0", "not a leaf");
  EXPECT_EXADNN_ERROR(optim::Adam({leaf, Tensor()}), "parameter 1 is an undefined tensor");
  EXPECT_EXADNN_ERROR(optim::Adam({leaf, make_param({2}, 1), leaf}),
                      "parameters 0 and 2 are the same tensor");
}

TEST(Optimizer, OptionChecks) {
  const std::vector<Tensor> p{make_param({2}, 0)};
  using namespace exadnn::optim;
  EXPECT_EXADNN_ERROR(SGD(p, SGDOptions(-0.1)), "optim::SGD", "invalid learning rate -0.1");
  EXPECT_EXADNN_ERROR(SGD(p, SGDOptions(0.1).momentum(-0.5)), "invalid momentum -0.5");
  EXPECT_EXADNN_ERROR(SGD(p, SGDOptions(0.1).weight_decay(-1)), "invalid weight_decay -1");
  EXPECT_EXADNN_ERROR(SGD(p, SGDOptions(0.1).nesterov(true)),
                      "Nesterov momentum requires a momentum > 0 and zero dampening");
  EXPECT_EXADNN_ERROR(SGD(p, SGDOptions(0.1).momentum(0.9).dampening(0.1).nesterov(true)),
                      "Nesterov", "dampening 0.1");
  EXPECT_NO_THROW(
      SGD(p, SGDOptions(0.1).momentum(0.9).dampening(0.5)));  // allowed without Nesterov
  EXPECT_EXADNN_ERROR(Adam(p, AdamOptions(-1e-3)), "optim::Adam", "invalid learning rate");
  EXPECT_EXADNN_ERROR(Adam(p, AdamOptions().betas(1.0, 0.999)), "invalid beta1 1");
  EXPECT_EXADNN_ERROR(Adam(p, AdamOptions().betas(0.9, -0.1)), "invalid beta2 -0.1");
  EXPECT_EXADNN_ERROR(Adam(p, AdamOptions().eps(-1e-8)), "invalid eps");
  EXPECT_EXADNN_ERROR(Adam(p, AdamOptions().weight_decay(-0.1)), "invalid weight_decay");
  EXPECT_EXADNN_ERROR(AdamW(p, AdamWOptions().weight_decay(-0.1)), "optim::AdamW",
                      "invalid weight_decay");
  EXPECT_EXADNN_ERROR(Adagrad(p, AdagradOptions().lr_decay(-1)), "optim::Adagrad",
                      "invalid lr_decay");
  EXPECT_EXADNN_ERROR(Adagrad(p, AdagradOptions().initial_accumulator_value(-1)),
                      "invalid initial_accumulator_value");
  EXPECT_EXADNN_ERROR(RMSprop(p, RMSpropOptions().alpha(-0.1)), "optim::RMSprop", "invalid alpha");
  EXPECT_EXADNN_ERROR(RMSprop(p, RMSpropOptions().momentum(-0.1)), "invalid momentum");
  EXPECT_EQ(AdamWOptions().weight_decay(), 1e-2);
  EXPECT_EQ(AdamOptions().weight_decay(), 0.0);
}

TEST(Optimizer, GradientOfAnotherDtypeIsAnError) {
  Tensor p = make_param({3}, 0);
  optim::SGD opt({p}, optim::SGDOptions(0.1));
  p.set_grad(ones({3}, DType::f32));
  EXPECT_EXADNN_ERROR(opt.step(), "optim::SGD", "gradient of parameter 0 has dtype f32");
}

// A parameter whose memory is not contiguous is updated like a contiguous one.
TEST(Optimizer, StridedParameter) {
  for (const auto& [name, make] : all_optimizers()) {
    SCOPED_TRACE(name);
    Tensor strided = exadnn::testing::strided_leaf({4, 6}, 5);
    ASSERT_FALSE(strided.is_contiguous());
    Tensor dense = strided.detach().clone();
    dense.requires_grad_(true);
    auto a = make({strided});
    auto b = make({dense});
    for (int s = 1; s <= 3; ++s) {
      set_grads({strided}, s);
      set_grads({dense}, s);
      a->step();
      b->step();
    }
    EXPECT_TRUE(identical(strided, dense));
  }
}

// bf16/f16 parameters step through f32 master weights (master_weights_test.cpp has the rest).
TEST(Optimizer, HalfPrecisionStepsThroughF32MasterWeights) {
  Tensor p = make_param({3}, 0, DType::f16);
  optim::SGD opt({p}, optim::SGDOptions(0.1));
  p.set_grad(ones({3}, DType::f16));
  opt.step();
  EXPECT_EQ(opt.master(0).dtype(), DType::f32);
  EXPECT_TRUE(identical(p, opt.master(0).to(DType::f16)));
}

}  // namespace
