// Fixture and helpers of the device-parameterised suite: each test runs once per device of
// testing::test_devices() (cpu, cuda:0), computing on that device and comparing with an f64
// reference computed on the CPU, or with finite differences through the device.
#pragma once

#include <gtest/gtest.h>

#include <vector>

#include "devices.h"
#include "exadnn/exadnn.h"
#include "testing.h"

namespace exadnn::devtest {

/// A test parameterised by the device it runs on; skipped (with the reason) when unavailable.
class DeviceTest : public ::testing::TestWithParam<Device> {
 protected:
  void SetUp() override { EXADNN_SKIP_IF_UNAVAILABLE(GetParam()); }
  Device device() const { return GetParam(); }
  /// t copied to the device under test.
  Tensor on_device(const Tensor& t) const { return t.to(device()); }
};

/// A CPU f32 tensor of `shape` with values uniform in [lo, hi), deterministic in seed.
inline Tensor uniform(const Shape& shape, uint64_t seed, double lo = -1.0, double hi = 1.0) {
  Generator gen(seed);
  std::vector<double> v(static_cast<size_t>(shape.numel()));
  for (auto& x : v) x = lo + (hi - lo) * gen.uniform();
  return from_vector<double>(v, shape, TensorOptions(DType::f32));
}

/// Checks f on the device against f on f64 CPU copies of the same inputs, at the tolerance of
/// the device result's dtype.
template <class F>
::testing::AssertionResult matches_f64_reference(Device device, const std::vector<Tensor>& inputs,
                                                 F f) {
  std::vector<Tensor> on_device, reference;
  for (const Tensor& t : inputs) {
    on_device.push_back(t.to(device));
    reference.push_back(t.to(DType::f64));
  }
  const Tensor got = f(on_device);
  if (got.device() != device)
    return ::testing::AssertionFailure() << "result is on " << got.device().str();
  return testing::all_close(got, f(reference));
}

/// gradcheck (f64, central differences) of f computed on `device`: the inputs move to the
/// device inside the function, so autograd differentiates through the device kernels.
template <class F>
::testing::AssertionResult gradcheck_on(Device device, const std::vector<Tensor>& inputs, F f) {
  return testing::gradcheck(
      [device, f](const std::vector<Tensor>& in) {
        std::vector<Tensor> moved;
        for (const Tensor& t : in) moved.push_back(t.to(device));
        return f(moved).to(Device::cpu());
      },
      inputs);
}

}  // namespace exadnn::devtest

/// Instantiates a DeviceTest-derived suite for every device (names end in /cpu, /cuda0).
#define EXADNN_INSTANTIATE_DEVICE_TEST(Suite)                                                      \
  INSTANTIATE_TEST_SUITE_P(Devices, Suite, ::testing::ValuesIn(::exadnn::testing::test_devices()), \
                           ::exadnn::testing::device_param_name)
