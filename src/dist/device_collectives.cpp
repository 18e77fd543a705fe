// The registry of device collectives: one provider per device kind, filled by the provider
// libraries' static registrars when they load.
#include "exadnn/dist/device_collectives.h"

#include <array>
#include <mutex>

#include "exadnn/core/error.h"

namespace exadnn::dist {

namespace {

struct Registry {
  std::mutex mutex;
  std::array<std::unique_ptr<DeviceCollectives>, kDeviceKindCount> providers;
};

// Function-local: registrars of libraries loaded before any use may run in any order.
Registry& registry() {
  static Registry r;
  return r;
}

// The library whose loading registers the collectives of `kind`, for the error message.
const char* provider_library(DeviceKind kind) {
  switch (kind) {
    case DeviceKind::cuda:
      return "exadnn_dist_cuda (NCCL)";
    case DeviceKind::cpu:
      break;
  }
  return "a library that registers them (dist/device_collectives.h)";
}

}  // namespace

void register_device_collectives(DeviceKind kind, std::unique_ptr<DeviceCollectives> provider) {
  EXADNN_CHECK(kind != DeviceKind::cpu, "dist::register_device_collectives",
               "the CPU's collectives are exadnn_dist's own (MPI)");
  Registry& r = registry();
  std::lock_guard lock(r.mutex);
  r.providers[static_cast<size_t>(kind)] = std::move(provider);
}

DeviceCollectives* find_device_collectives(DeviceKind kind) noexcept {
  Registry& r = registry();
  std::lock_guard lock(r.mutex);
  return r.providers[static_cast<size_t>(kind)].get();
}

DeviceCollectives& device_collectives(DeviceKind kind, const char* op) {
  DeviceCollectives* provider = find_device_collectives(kind);
  EXADNN_CHECK(provider != nullptr, exadnn::detail::cat("dist::", op),
               "no collectives for device kind ", device_kind_name(kind), ": link ",
               provider_library(kind));
  return *provider;
}

}  // namespace exadnn::dist
