// Where a tensor's memory lives: the CPU, or one CUDA device.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace exadnn {

/// Kind of compute device; each kind has its own row in the kernel dispatch table.
enum class DeviceKind : uint8_t { cpu, cuda };
/// Number of DeviceKind values.
inline constexpr int kDeviceKindCount = 2;

const char* device_kind_name(DeviceKind k) noexcept;

/// A device: `cpu` or `cuda:N`.
struct Device {
  DeviceKind kind = DeviceKind::cpu;
  int index = 0;

  constexpr Device() = default;
  constexpr Device(DeviceKind k, int i = 0) : kind(k), index(i) {}  // NOLINT: implicit by design
  /// Parses "cpu", "cuda", "cuda:1"; throws exadnn::Error on anything else.
  static Device parse(std::string_view text);
  static constexpr Device cpu() { return Device(DeviceKind::cpu, 0); }
  static constexpr Device cuda(int i = 0) { return Device(DeviceKind::cuda, i); }

  bool is_cpu() const noexcept { return kind == DeviceKind::cpu; }
  /// "cpu" or "cuda:N"
  std::string str() const;
  friend constexpr bool operator==(Device a, Device b) noexcept {
    return a.kind == b.kind && a.index == b.index;
  }
};

}  // namespace exadnn
