// Layer ops on every device (cuDNN and exadnn's CUDA kernels on cuda): conv2d, pooling, batch
// norm and softmax forward against f64 CPU references, backward against finite differences.
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
