// A training step (GEMM, convolution, batch norm, pooling through oneDNN, forward and backward)
// gives the one-thread result whatever team OpenMP really hands out: under dynamic adjustment,
// under OMP_THREAD_LIMIT (the CTest entry backend.omp_thread_limit_1 runs this file with it), and
// when called from inside a caller's own parallel region (nested parallelism off: a team of one).
#include <gtest/gtest.h>
#include <omp.h>

#include <vector>

#include "exadnn/exadnn.h"
#include "testing.h"

using namespace exadnn;
using exadnn::testing::all_close;

namespace {

// The step's inputs: x [16, 3, 20, 20], a conv 3→8 (3×3, pad 1), batch norm over 8 channels,
// 2×2 max pooling, then a linear 800→256→10 layer pair, all f32.
struct StepInputs {
  Tensor x, target, conv_w, conv_b, bn_w, bn_b, fc1_w, fc2_w;
};

StepInputs make_inputs() {
  manual_seed(7);
  StepInputs in;
  in.x = randn({16, 3, 20, 20});
  in.target = randint(0, 10, {16});
  in.conv_w = randn({8, 3, 3, 3});
  in.conv_b = randn({8});
  in.bn_w = randn({8});
  in.bn_b = randn({8});
  in.fc1_w = randn({800, 256}) * 0.05;
  in.fc2_w = randn({256, 10}) * 0.05;
  return in;
}

// The loss and every parameter's gradient after one step.
std::vector<Tensor> step(const StepInputs& in) {
  std::vector<Tensor> leaves{in.conv_w, in.conv_b, in.bn_w, in.bn_b, in.fc1_w, in.fc2_w};
  for (Tensor& p : leaves) p = p.clone().requires_grad_();
  Tensor h = conv2d(in.x, leaves[0], leaves[1], Conv2dParams{1, 1});
  h = batch_norm(h, Tensor(), Tensor(), leaves[2], leaves[3], /*training=*/true);
  h = max_pool2d(relu(h), 2).flatten(1);
  const Tensor logits = matmul(relu(matmul(h, leaves[4])), leaves[5]);
  const Tensor loss = nn::cross_entropy(logits, in.target);
  loss.backward();
  std::vector<Tensor> parts{loss.detach()};
  for (const Tensor& p : leaves) parts.push_back(p.grad());
  return parts;
}

::testing::AssertionResult same_step(const std::vector<Tensor>& actual,
                                     const std::vector<Tensor>& expected) {
  if (actual.size() != expected.size()) return ::testing::AssertionFailure() << "part count";
  for (size_t i = 0; i < actual.size(); ++i) {
    auto r = all_close(actual[i], expected[i]);
    if (!r) return r << " (part " << i << ": 0 = loss, then the gradients in order)";
  }
  return ::testing::AssertionSuccess();
}

// Restores the process's thread count and dynamic adjustment after each test.
class OmpTeam : public ::testing::Test {
 protected:
  void SetUp() override {
    threads_ = get_num_threads();
    dynamic_ = omp_get_dynamic();
    inputs_ = make_inputs();
    set_num_threads(1);
    reference_ = step(inputs_);
  }
  void TearDown() override {
    omp_set_dynamic(dynamic_);
    set_num_threads(threads_);
  }
  // The fixed layout rule: measured routes (the default) depend on timing and on the thread
  // count, and another route changes the summation order, not the team handling tested here.
  ConvAlgorithmGuard fixed_conv_rule_{ConvAlgorithm::onednn};
  int threads_ = 1, dynamic_ = 0;
  StepInputs inputs_;
  std::vector<Tensor> reference_;
};

// More threads asked for than the machine's cores: dynamic adjustment hands out fewer.
TEST_F(OmpTeam, DynamicAdjustmentGivesTheOneThreadResult) {
  set_num_threads(8);
  omp_set_dynamic(1);
  EXPECT_TRUE(same_step(step(inputs_), reference_));
}

// Under OMP_THREAD_LIMIT=1 (backend.omp_thread_limit_1) every region gets one thread whatever
// is asked; without it this is a plain 4-thread step.
TEST_F(OmpTeam, ThreadLimitGivesTheOneThreadResult) {
  set_num_threads(4);
  EXPECT_TRUE(same_step(step(inputs_), reference_));
}

// A simulation's own parallel region calling exadnn on each of its threads.
TEST_F(OmpTeam, InsideACallersParallelRegionGivesTheOneThreadResult) {
  set_num_threads(2);
  std::vector<std::vector<Tensor>> results(2);
  int team = 0;
#pragma omp parallel num_threads(2)
  {
#pragma omp single
    team = omp_get_num_threads();  // 1 under OMP_THREAD_LIMIT=1
    results[static_cast<size_t>(omp_get_thread_num())] = step(inputs_);
  }
  ASSERT_GE(team, 1);
  for (int t = 0; t < team; ++t)
    EXPECT_TRUE(same_step(results[static_cast<size_t>(t)], reference_));
}

// The calling task's OpenMP settings are the same after an op as before it.
TEST_F(OmpTeam, OpsLeaveTheCallersSettingsAlone) {
  set_num_threads(3);
  omp_set_dynamic(1);
  step(inputs_);
  EXPECT_EQ(omp_get_max_threads(), 3);
  EXPECT_TRUE(omp_get_dynamic());
}

}  // namespace
