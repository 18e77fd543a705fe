// Layer ops on every device (cuDNN and exadnn's CUDA kernels on cuda): conv2d, pooling, batch
// norm and softmax forward against f64 CPU references, backward against finite differences.
#include <functional>

#include "device_test_util.h"

namespace exadnn {
namespace {

using devtest::DeviceTest;
using devtest::gradcheck_on;
using devtest::matches_f64_reference;
using Inputs = std::vector<Tensor>;

class DeviceLayers : public DeviceTest {};

TEST_P(DeviceLayers, Conv2dForward) {
  const Tensor x = devtest::uniform({2, 4, 9, 8}, 1), w = devtest::uniform({6, 2, 3, 3}, 2);
  const Tensor b = devtest::uniform({6}, 3);
  for (const Conv2dParams& p : {Conv2dParams{}, Conv2dParams{.stride = 2, .padding = 1},
                                Conv2dParams{.padding = 2, .dilation = 2},
                                Conv2dParams{.stride = {1, 2}, .padding = 1, .groups = 2}}) {
    const Tensor weight = p.groups == 2 ? w : devtest::uniform({6, 4, 3, 3}, 4);
    EXPECT_TRUE(matches_f64_reference(
        device(), {x, weight, b}, [&](const Inputs& v) { return conv2d(v[0], v[1], v[2], p); }));
  }
}

TEST_P(DeviceLayers, Conv2dGradients) {
  const Tensor x = testing::random_leaf({2, 2, 5, 5}, 5), w = testing::random_leaf({4, 1, 3, 3}, 6);
  const Tensor b = testing::random_leaf({4}, 7);
  EXPECT_TRUE(gradcheck_on(device(), {x, w, b}, [](const Inputs& v) {
    return conv2d(v[0], v[1], v[2], Conv2dParams{.stride = 2, .padding = 1, .groups = 2});
  }));
}

// Under 16-bit autocast conv2d runs in the scope's dtype (cuDNN on cuda, oneDNN or exadnn's
// loops on the CPU). On inputs exact in 16 bits, with sums in f32, the output and the gradients
// of sum(output) differ from the f64 results by their own rounding to 16 bits only.
TEST_P(DeviceLayers, Conv2dUnderAutocastRoundsOnlyItsResults) {
  for (DType dt : {DType::bf16, DType::f16}) {
    const Tensor x = devtest::uniform({2, 4, 9, 8}, 21).to(dt).to(DType::f32);
    const Tensor w = devtest::uniform({6, 4, 3, 3}, 22).to(dt).to(DType::f32);
    const Tensor b = devtest::uniform({6}, 23).to(dt).to(DType::f32);
    const Conv2dParams params{.padding = 1};
    EXPECT_TRUE(matches_f64_reference(device(), {x, w, b}, [&](const Inputs& v) {
      const precision::Autocast scope(dt);
      return conv2d(v[0], v[1], v[2], params);
    })) << dtype_name(dt);
    auto gradients = [&](Device on, DType leaf_dtype) {
      std::vector<Tensor> leaves;
      for (const Tensor& t : {x, w, b})
        leaves.push_back(t.to(leaf_dtype).to(on).detach().requires_grad_());
      {
        const precision::Autocast scope(dt);
        sum(conv2d(leaves[0], leaves[1], leaves[2], params)).backward();
      }
      std::vector<Tensor> grads;
      for (const Tensor& leaf : leaves) grads.push_back(leaf.grad());
      return grads;
    };
    const auto got = gradients(device(), DType::f32), want = gradients(Device::cpu(), DType::f64);
    const char* names[] = {"input", "weight", "bias"};
    for (size_t i = 0; i < got.size(); ++i)
      EXPECT_TRUE(testing::all_close(got[i], testing::values(want[i]), testing::tolerance_for(dt)))
          << dtype_name(dt) << " " << names[i] << " gradient";
  }
}

TEST_P(DeviceLayers, PoolingForwardAndBackward) {
  const Tensor x = devtest::uniform({2, 3, 8, 8}, 8);
  EXPECT_TRUE(
      matches_f64_reference(device(), {x}, [](const Inputs& v) { return max_pool2d(v[0], 2); }));
  EXPECT_TRUE(matches_f64_reference(device(), {x},
                                    [](const Inputs& v) { return max_pool2d(v[0], 3, 2, 1); }));
  EXPECT_TRUE(matches_f64_reference(
      device(), {x}, [](const Inputs& v) { return avg_pool2d(v[0], 3, 2, 1, false); }));
  EXPECT_TRUE(matches_f64_reference(
      device(), {x}, [](const Inputs& v) { return adaptive_avg_pool2d(v[0], 2, 4); }));
  const Tensor leaf = testing::random_leaf({1, 2, 6, 6}, 9);
  EXPECT_TRUE(gradcheck_on(device(), {leaf}, [](const Inputs& v) { return max_pool2d(v[0], 2); }));
  EXPECT_TRUE(gradcheck_on(device(), {leaf},
                           [](const Inputs& v) { return avg_pool2d(v[0], 3, 2, 1, true); }));
}

// 16-bit pooling (what follows a 16-bit convolution under autocast; the first GPU run's bf16 CNN
// stopped at "no kernel for pool2d_forward on cuda with dtype bf16"): outputs and the gradients
// of sum(output) against f64, at the 16-bit dtype's tolerance.
TEST_P(DeviceLayers, PoolingInSixteenBits) {
  using Pool = std::function<Tensor(const Tensor&)>;
  const std::vector<Pool> pools = {[](const Tensor& t) { return max_pool2d(t, 2); },
                                   [](const Tensor& t) { return avg_pool2d(t, 3, 2, 1, false); }};
  for (DType dt : {DType::bf16, DType::f16}) {
    const Tensor x = devtest::uniform({2, 3, 8, 8}, 8).to(dt);
    for (const Pool& pool : pools) {
      EXPECT_TRUE(matches_f64_reference(device(), {x}, [&](const Inputs& v) { return pool(v[0]); }))
          << dtype_name(dt);
      auto gradient = [&](Device on, DType leaf_dtype) {
        Tensor leaf = x.to(leaf_dtype).to(on).detach().requires_grad_();
        sum(pool(leaf)).backward();
        return leaf.grad();
      };
      EXPECT_TRUE(testing::all_close(gradient(device(), dt),
                                     testing::values(gradient(Device::cpu(), DType::f64)),
                                     testing::tolerance_for(dt)))
          << dtype_name(dt) << " gradient";
    }
  }
}

TEST_P(DeviceLayers, BatchNormTrainingAndEvaluation) {
  const Tensor x = devtest::uniform({4, 3, 5, 2}, 10, -2.0, 3.0);
  const Tensor gamma = devtest::uniform({3}, 11, 0.5, 1.5), beta = devtest::uniform({3}, 12);
  const Tensor mean = devtest::uniform({3}, 13), var = devtest::uniform({3}, 14, 0.5, 2.0);
  EXPECT_TRUE(matches_f64_reference(device(), {x, gamma, beta}, [](const Inputs& v) {
    return batch_norm(v[0], Tensor(), Tensor(), v[1], v[2], true);
  }));
  EXPECT_TRUE(matches_f64_reference(device(), {x, mean, var, gamma, beta}, [](const Inputs& v) {
    return batch_norm(v[0], v[1], v[2], v[3], v[4], false);
  }));
  // Running statistics are updated in place on the device.
  const Tensor rm = zeros({3}, TensorOptions().device(device())),
               rv = ones({3}, TensorOptions().device(device()));
  batch_norm(x.to(device()), rm, rv, Tensor(), Tensor(), true, 0.5);
  const Tensor rm_cpu = zeros({3}), rv_cpu = ones({3});
  batch_norm(x, rm_cpu, rv_cpu, Tensor(), Tensor(), true, 0.5);
  EXPECT_TRUE(testing::all_close(rm, rm_cpu));
  EXPECT_TRUE(testing::all_close(rv, rv_cpu));

  const Tensor lx = testing::random_leaf({3, 2, 4}, 15), lg = testing::random_leaf({2}, 16);
  const Tensor lb = testing::random_leaf({2}, 17);
  EXPECT_TRUE(gradcheck_on(device(), {lx, lg, lb}, [](const Inputs& v) {
    return batch_norm(v[0], Tensor(), Tensor(), v[1], v[2], true);
  }));
  const Tensor lm = testing::random_leaf({2}, 18);
  EXPECT_TRUE(gradcheck_on(device(), {lx, lg, lb}, [lm](const Inputs& v) {
    const Tensor m = lm.detach().to(v[0].device());
    const Tensor var = ones({2}, TensorOptions(DType::f64).device(v[0].device()));
    return batch_norm(v[0], m, var, v[1], v[2], false);
  }));
}

TEST_P(DeviceLayers, SoftmaxAndLogSoftmax) {
  const Tensor x = devtest::uniform({3, 7, 4}, 19, -5.0, 5.0);
  for (int64_t axis : {0, 1, 2}) {
    EXPECT_TRUE(matches_f64_reference(device(), {x},
                                      [axis](const Inputs& v) { return softmax(v[0], axis); }));
    EXPECT_TRUE(matches_f64_reference(device(), {x},
                                      [axis](const Inputs& v) { return log_softmax(v[0], axis); }));
  }
  const Tensor leaf = testing::random_leaf({2, 5, 3}, 20);
  EXPECT_TRUE(gradcheck_on(device(), {leaf}, [](const Inputs& v) { return softmax(v[0], 1); }));
  EXPECT_TRUE(gradcheck_on(device(), {leaf}, [](const Inputs& v) { return log_softmax(v[0], 2); }));
}

EXADNN_INSTANTIATE_DEVICE_TEST(DeviceLayers);

}  // namespace
}  // namespace exadnn
