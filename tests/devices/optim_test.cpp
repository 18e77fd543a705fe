// Fused optimizer updates and gradient clipping on every device against the same steps on the
// CPU, and the list of kernels each device kind lacks (reported, never skipped silently).
#include <cmath>
#include <iostream>

#include "device_test_util.h"

namespace exadnn {
namespace {

using devtest::DeviceTest;

class DeviceOptim : public DeviceTest {
 protected:
  // Runs three steps of the optimizer made by make_opt on a parameter and returns it (on the CPU).
  template <class MakeOpt>
  Tensor train(Device on, DType dtype, MakeOpt make_opt) {
    Tensor p = devtest::uniform({5, 7}, 1).to(dtype).to(on).detach().requires_grad_();
    auto opt = make_opt(std::vector<Tensor>{p});
    for (int step = 0; step < 3; ++step) {
      opt.zero_grad();
      const Tensor target = devtest::uniform({5, 7}, 10 + step).to(dtype).to(on);
      sum(mul(sub(p, target), sub(p, target))).backward();
      opt.step();
    }
    return p.detach().to(Device::cpu());
  }
};

TEST_P(DeviceOptim, SgdAndAdamStepsMatchTheCpu) {
  for (DType dtype : {DType::f32, DType::f64}) {
    auto sgd = [](std::vector<Tensor> ps) {
      return optim::SGD(std::move(ps),
                        optim::SGDOptions(0.05).momentum(0.9).nesterov(true).weight_decay(0.01));
    };
    EXPECT_TRUE(testing::all_close(train(device(), dtype, sgd), train(Device::cpu(), dtype, sgd)));
    auto adam = [](std::vector<Tensor> ps) {
      return optim::Adam(std::move(ps), optim::AdamOptions(0.01).weight_decay(0.1).amsgrad(true));
    };
    EXPECT_TRUE(
        testing::all_close(train(device(), dtype, adam), train(Device::cpu(), dtype, adam)));
  }
}

// A checkpoint's optimizer state is read onto the host: loading it into an optimizer whose
// parameters live on the device must move it there (the first GPU run's --resume failed with
// "copy_: operands on different devices").
TEST_P(DeviceOptim, StateLoadedFromTheHostContinuesTheSameSteps) {
  auto step_twice = [&](optim::Optimizer& opt, Tensor& p, int seed) {
    for (int step = 0; step < 2; ++step) {
      opt.zero_grad();
      const Tensor target = devtest::uniform({5, 7}, seed + step).to(device());
      sum(mul(sub(p, target), sub(p, target))).backward();
      opt.step();
    }
  };
  Tensor p = devtest::uniform({5, 7}, 1).to(device()).detach().requires_grad_();
  optim::Adam adam({p}, optim::AdamOptions(0.01));
  step_twice(adam, p, 10);
  StateDict on_host;
  for (const auto& [name, t] : adam.state_dict()) on_host.insert(name, t.to(Device::cpu()));
  Tensor q = p.detach().clone().requires_grad_();
  optim::Adam resumed({q}, optim::AdamOptions(0.01));
  resumed.load_state_dict(on_host);
  step_twice(adam, p, 20);
  step_twice(resumed, q, 20);
  EXPECT_TRUE(testing::all_close(q.detach().to(Device::cpu()), p.detach().to(Device::cpu())));
}

TEST_P(DeviceOptim, ClipGradNormUsesTheDeviceSumOfSquares) {
  Tensor a = devtest::uniform({300}, 2).to(device()).requires_grad_();
  Tensor b = devtest::uniform({4, 4}, 3).to(device()).requires_grad_();
  sum(mul(a, a)).backward();
  sum(mul(b, scalar_tensor(3.0, TensorOptions().device(device())))).backward();
  const Tensor ga = a.grad().to(Device::cpu()), gb = b.grad().to(Device::cpu());
  double want = 0;
  for (double v : testing::values(ga)) want += v * v;
  for (double v : testing::values(gb)) want += v * v;
  const double norm = optim::clip_grad_norm({a, b}, 1.0);
  EXPECT_NEAR(norm, std::sqrt(want), 1e-6 * std::sqrt(want));
}

TEST_P(DeviceOptim, ListsTheKernelsItLacks) {
  const auto missing = KernelRegistry::instance().missing(device().kind);
  std::cout << device_kind_name(device().kind) << " lacks " << missing.size() << " kernels:";
  for (const auto& m : missing) std::cout << " " << m;
  std::cout << "\n";
  RecordProperty("missing_kernels", static_cast<int>(missing.size()));
  // The training path is complete in f32 on every device.
  for (OpId op : {OpId::add, OpId::mul, OpId::gemm, OpId::sum, OpId::relu_backward,
                  OpId::conv2d_forward, OpId::pool2d_backward, OpId::softmax_forward,
                  OpId::batch_norm_backward, OpId::sgd_step, OpId::adam_step, OpId::sum_squares})
    EXPECT_NE(KernelRegistry::instance().find(op, device().kind, DType::f32), nullptr)
        << op_name(op);
}

EXADNN_INSTANTIATE_DEVICE_TEST(DeviceOptim);

}  // namespace
}  // namespace exadnn
