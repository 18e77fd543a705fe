// nn::Module: parameter naming, state dicts, dtype moves, train/eval, repr.
#include "testing.h"

using namespace exadnn;

namespace {
std::shared_ptr<nn::Sequential> mlp() {
  manual_seed(1);
  return std::make_shared<nn::Sequential>(std::initializer_list<std::shared_ptr<nn::Module>>{
      std::make_shared<nn::Linear>(4, 3), std::make_shared<nn::ReLU>(),
      std::make_shared<nn::Linear>(nn::LinearOptions(3, 2).bias(false))});
}
}  // namespace

TEST(Module, ParametersAreNamedByPath) {
  auto net = mlp();
  const auto named = net->named_parameters();
  ASSERT_EQ(named.size(), 3u);
  EXPECT_EQ(named[0].first, "0.weight");
  EXPECT_EQ(named[1].first, "0.bias");
  EXPECT_EQ(named[2].first, "2.weight");
  EXPECT_EQ(named[0].second.shape(), (Shape{3, 4}));
  EXPECT_EQ(net->parameter_count(), 3 * 4 + 3 + 2 * 3);
  for (const Tensor& p : net->parameters()) EXPECT_TRUE(p.requires_grad() && p.is_leaf());
}

TEST(Module, StateDictRoundTrip) {
  auto a = mlp();
  manual_seed(2);
  auto b = std::make_shared<nn::Sequential>(std::initializer_list<std::shared_ptr<nn::Module>>{
      std::make_shared<nn::Linear>(4, 3), std::make_shared<nn::ReLU>(),
      std::make_shared<nn::Linear>(nn::LinearOptions(3, 2).bias(false))});
  const Tensor x = randn({5, 4});
  EXPECT_FALSE(exadnn::testing::all_close(b->forward(x), a->forward(x)));
  b->load_state_dict(a->state_dict());
  EXPECT_TRUE(exadnn::testing::all_close(b->forward(x), a->forward(x)));
  // loading copies values: the parameters stay the same tensors (optimizers keep working)
  EXPECT_FALSE(b->parameters()[0].shares_storage_with(a->parameters()[0]));
}

TEST(Module, LoadRefusesOtherShapesNamingTheParameter) {
  auto net = mlp();
  StateDict state = net->state_dict();
  StateDict wrong;
  for (const auto& [name, t] : state) wrong.insert(name, name == "0.bias" ? zeros({7}) : t);
  EXPECT_EXADNN_ERROR(net->load_state_dict(wrong), "load_state_dict", "0.bias", "[7]", "[3]");
  StateDict missing;
  missing.insert("0.weight", state.at("0.weight"));
  EXPECT_EXADNN_ERROR(net->load_state_dict(missing), "missing", "0.bias");
  StateDict extra = state;
  extra.insert("5.weight", zeros({1}));
  EXPECT_EXADNN_ERROR(net->load_state_dict(extra), "unexpected", "5.weight");
  net->load_state_dict(missing, /*strict=*/false);  // partial loads are allowed when not strict
}

TEST(Module, ToDtypeKeepsLeavesAndValues) {
  auto net = mlp();
  const Tensor x = randn({2, 4});
  const std::vector<double> before = exadnn::testing::values(net->forward(x));
  net->to(DType::f64);
  for (const Tensor& p : net->parameters()) {
    EXPECT_EQ(p.dtype(), DType::f64);
    EXPECT_TRUE(p.is_leaf() && p.requires_grad());
  }
  const Tensor y = net->forward(x.to(DType::f64));
  EXPECT_TRUE(exadnn::testing::all_close(y.to(DType::f32), before,
                                         exadnn::testing::tolerance_for(DType::f32)));
}

TEST(Module, TrainEvalReachesChildren) {
  auto net = mlp();
  net->eval();
  EXPECT_FALSE(net->is_training());
  EXPECT_FALSE((*net)[0]->is_training());
  net->train();
  EXPECT_TRUE((*net)[2]->is_training());
}

TEST(Module, ReprShowsTheTree) {
  const std::string r = mlp()->repr();
  EXPECT_NE(r.find("Sequential("), std::string::npos) << r;
  EXPECT_NE(r.find("(0): Linear(in=4, out=3)"), std::string::npos) << r;
  EXPECT_NE(r.find("(2): Linear(in=3, out=2, bias=false)"), std::string::npos) << r;
}

TEST(Module, ZeroGradDropsGradients) {
  auto net = mlp();
  sum(net->forward(randn({2, 4}))).backward();
  for (const Tensor& p : net->parameters()) EXPECT_TRUE(p.grad().defined());
  net->zero_grad();
  for (const Tensor& p : net->parameters()) EXPECT_FALSE(p.grad().defined());
}

TEST(Module, BindParametersRebindsReleasesAndChecks) {
  auto net = mlp();
  const Tensor x = ones({2, 4});
  const auto before = exadnn::testing::values((*net)(x));
  std::vector<Tensor> kept;
  for (const Tensor& p : net->parameters()) kept.push_back(p.detach().clone());
  net->bind_parameters(std::vector<Tensor>(3));  // released
  for (const Tensor& p : net->parameters()) EXPECT_FALSE(p.defined());
  net->bind_parameters(kept);  // the members are the given tensors themselves
  EXPECT_EQ(net->parameters()[0].data_ptr(), kept[0].data_ptr());
  const auto after = exadnn::testing::values((*net)(x));
  for (size_t i = 0; i < before.size(); ++i) EXPECT_EQ(after[i], before[i]);
  EXPECT_THROW(net->bind_parameters({kept[0]}), Error);  // a count that is not the parameters'
  try {
    net->bind_parameters({kept[0], zeros({5}), kept[2]});
    ADD_FAILURE() << "a misshapen tensor was bound";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("'0.bias'"), std::string::npos) << e.what();
  }
}
