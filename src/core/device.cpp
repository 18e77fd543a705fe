#include "exadnn/core/device.h"

#include <charconv>

#include "exadnn/core/error.h"

namespace exadnn {

const char* device_kind_name(DeviceKind k) noexcept {
  switch (k) {
    case DeviceKind::cpu:
      return "cpu";
    case DeviceKind::cuda:
      return "cuda";
  }
  return "?";
}

Device Device::parse(std::string_view text) {
  if (text == "cpu") return cpu();
  if (text == "cuda") return cuda(0);
  if (text.substr(0, 5) == "cuda:") {
    const std::string_view digits = text.substr(5);
    int index = -1;
    auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), index);
    if (ec == std::errc() && end == digits.data() + digits.size() && index >= 0) return cuda(index);
  }
  throw Error("Device::parse",
              detail::cat("unknown device '", text, "' (expected cpu, cuda or cuda:N)"));
}

std::string Device::str() const {
  if (kind == DeviceKind::cpu) return "cpu";
  return detail::cat(device_kind_name(kind), ":", index);
}

}  // namespace exadnn
