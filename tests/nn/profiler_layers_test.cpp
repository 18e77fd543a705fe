// Sequential labels its layers for the profiler; backward time goes to the layer that recorded
// each node; evaluation (no graph) is not profiled.
#include "exadnn/core/profiler.h"
#include "profiler_on.h"
#include "testing.h"

using namespace exadnn;
using exadnn::testing::ProfilerOn;

namespace {

std::shared_ptr<nn::Sequential> mlp() {
  manual_seed(1);
  return std::make_shared<nn::Sequential>(std::initializer_list<std::shared_ptr<nn::Module>>{
      std::make_shared<nn::Linear>(4, 3), std::make_shared<nn::ReLU>(),
      std::make_shared<nn::Linear>(3, 2)});
}

int64_t calls(const std::string& label, profiler::Phase phase) {
  for (const auto& r : profiler::rows())
    if (r.label == label && r.phase == phase) return r.calls;
  return 0;
}

}  // namespace

TEST(ProfilerLayers, ForwardAndBackwardAreChargedToEachLayer) {
  auto net = mlp();
  const ProfilerOn on;
  Tensor y = net->forward(randn({5, 4}));
  sum(y).backward();
  // the Linear and the ReLU run as one fused step (src/nn/layer_fusion.h), one row
  for (const std::string label : {"0 Linear+ReLU", "2 Linear"}) {
    EXPECT_EQ(calls(label, profiler::Phase::forward), 1) << label;
    EXPECT_GE(calls(label, profiler::Phase::backward), 1) << label;
  }
  EXPECT_EQ(calls("1 ReLU", profiler::Phase::forward), 0);
  EXPECT_EQ(calls("(sum)", profiler::Phase::backward), 1);  // recorded outside any layer
}

TEST(ProfilerLayers, EvaluationWithoutAGraphIsNotProfiled) {
  auto net = mlp();
  const ProfilerOn on;
  {
    const NoGradGuard no_grad;
    net->forward(randn({5, 4}));
  }
  EXPECT_TRUE(profiler::rows().empty());
}

TEST(ProfilerLayers, NestedSequentialsNameTheirLayersByPath) {
  auto inner = mlp();
  nn::Sequential outer({std::make_shared<nn::ReLU>(), inner});
  const ProfilerOn on;
  sum(outer.forward(randn({2, 4}))).backward();
  EXPECT_EQ(calls("1 Sequential/0 Linear+ReLU", profiler::Phase::forward), 1);
  EXPECT_GE(calls("1 Sequential/2 Linear", profiler::Phase::backward), 1);
}
