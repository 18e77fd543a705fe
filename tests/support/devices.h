// The devices tests run on: the same test, parameterised by device, runs on the CPU and on
// cuda:0. A cuda case reports itself as SKIPPED with the reason when the test program was built
// without CUDA (it does not link exadnn_cuda) or no CUDA device is visible — never a silent pass.
// Header-only: EXADNN_HAS_CUDA comes from linking exadnn::cuda.
#pragma once

#include <gtest/gtest.h>

#include <ostream>
#include <string>
#include <vector>

#include "exadnn/core/device.h"
#ifdef EXADNN_HAS_CUDA
#include "exadnn/backend/cuda/cuda.h"
#endif

namespace exadnn {
/// Prints a device parameter as "cpu" / "cuda:0" in test names and messages.
inline void PrintTo(const Device& device, std::ostream* os) {
  *os << device.str();
}
}  // namespace exadnn

namespace exadnn::testing {

/// Every device a device-parameterised test covers: cpu and cuda:0 (skipped when unavailable).
inline std::vector<Device> test_devices() {
  return {Device::cpu(), Device::cuda(0)};
}

/// Why tests cannot run on `device` ("" when they can).
inline std::string device_unavailable_reason(Device device) {
  if (device.is_cpu()) return "";
#ifdef EXADNN_HAS_CUDA
  if (device.index < cuda::device_count()) return "";
  const std::string why = cuda::unavailable_reason();
  return "no CUDA device visible: " +
         (why.empty() ? "cuda:" + std::to_string(device.index) + " does not exist" : why);
#else
  return "built without CUDA";
#endif
}

/// The devices of this build that tests can run on now (cpu always).
inline std::vector<Device> available_devices() {
  std::vector<Device> out;
  for (Device d : test_devices())
    if (device_unavailable_reason(d).empty()) out.push_back(d);
  return out;
}

/// Test-name suffix of a device parameter: "cpu", "cuda0".
inline std::string device_param_name(const ::testing::TestParamInfo<Device>& info) {
  return info.param.is_cpu() ? "cpu" : "cuda" + std::to_string(info.param.index);
}

}  // namespace exadnn::testing

/// Skips the current test, with the reason, when `device` is unavailable.
#define EXADNN_SKIP_IF_UNAVAILABLE(device)                                                       \
  do {                                                                                           \
    const std::string exadnn_skip_reason = ::exadnn::testing::device_unavailable_reason(device); \
    if (!exadnn_skip_reason.empty()) GTEST_SKIP() << exadnn_skip_reason;                         \
  } while (0)
