// The CUDA memory kinds behind the MemoryManager: device (cudaMalloc), pinned host
// (cudaMallocHost) and managed (cudaMallocManaged), and the copies between every pair of kinds.
//
// The MemoryManager caches freed blocks and keeps the statistics; these backends only make the
// raw calls. Every copy and fill runs on the legacy default stream, which orders it after the
// kernels already launched there, and waits for it: the MemoryManager's API is synchronous.
#include <unistd.h>

#include <cstring>
#include <limits>
#include <memory>

#include "cuda_check.h"
#include "exadnn/backend/cuda/cuda.h"
#include "exadnn/core/error.h"
#include "exadnn/core/memory_manager.h"
#include "register.h"

namespace exadnn::cuda {

namespace {

constexpr cudaStream_t kStream = nullptr;  // the legacy default stream

size_t physical_host_memory() {
  return static_cast<size_t>(sysconf(_SC_PHYS_PAGES)) * static_cast<size_t>(sysconf(_SC_PAGE_SIZE));
}

// An allocation failure is nullptr (the MemoryManager frees its cache and retries, then reports
// "out of memory"); any other failure (no device, a broken driver) is an error naming the call.
// `allocate` is called here, before `ptr` is read: passing the call's status and the pointer as
// two arguments of one call would leave their order to the compiler (GCC read the pointer first,
// still nullptr, and every allocation of the first GPU run was reported as "out of memory").
template <typename Allocate>
void* checked_allocation(Allocate allocate, const char* call) {
  void* ptr = nullptr;
  const cudaError_t status = allocate(&ptr);
  if (status == cudaSuccess) return ptr;
  if (status == cudaErrorMemoryAllocation) {
    cudaGetLastError();  // clear it, so the next launch check does not report it
    return nullptr;
  }
  check(status, call);
  return nullptr;
}

// Refuses a device the process cannot see, saying why ("no CUDA-capable device is detected").
void require_device(int device) {
  const int count = device_count();
  if (device >= 0 && device < count) return;
  throw Error("cuda",
              count == 0
                  ? detail::cat("cuda:", device, " is not available: ", unavailable_reason())
                  : detail::cat("cuda:", device, " does not exist (", count, " devices visible)"));
}

// Memory of one GPU (cudaMalloc on `device`).
class DeviceBackend final : public MemoryBackend {
 public:
  const char* name() const override { return "device (cudaMalloc)"; }
  void* allocate(size_t nbytes, int device) override {
    require_device(device);
    DeviceGuard guard(device);
    return checked_allocation([&](void** ptr) { return cudaMalloc(ptr, nbytes); }, "cudaMalloc");
  }
  void deallocate(void* ptr, size_t, int device) override {
    DeviceGuard guard(device);
    cudaFree(ptr);  // no error to report from a destructor path; a failure leaves the block
  }
  // Not queried here: asking the driver at load time would start CUDA in every process linking
  // the library. cudaMalloc reports exhaustion instead.
  size_t capacity(int) const override { return std::numeric_limits<size_t>::max(); }
  void memset(void* dst, int value, size_t nbytes) override { device_memset(dst, value, nbytes); }

  static void device_memset(void* dst, int value, size_t nbytes) {
    cudaPointerAttributes attr{};
    EXADNN_CUDA_CHECK(cudaPointerGetAttributes(&attr, dst));
    DeviceGuard guard(attr.device);
    EXADNN_CUDA_CHECK(cudaMemsetAsync(dst, value, nbytes, kStream));
    EXADNN_CUDA_CHECK(cudaStreamSynchronize(kStream));
  }
};

// Page-locked host memory (cudaMallocHost): fast, asynchronous host<->device transfers.
class PinnedBackend final : public MemoryBackend {
 public:
  const char* name() const override { return "pinned (cudaMallocHost)"; }
  void* allocate(size_t nbytes, int) override {
    return checked_allocation([&](void** ptr) { return cudaMallocHost(ptr, nbytes); },
                              "cudaMallocHost");
  }
  void deallocate(void* ptr, size_t, int) override { cudaFreeHost(ptr); }
  size_t capacity(int) const override { return physical_host_memory(); }
  void memset(void* dst, int value, size_t nbytes) override { std::memset(dst, value, nbytes); }
};

// Unified memory (cudaMallocManaged), reachable from the host and every device.
class ManagedBackend final : public MemoryBackend {
 public:
  const char* name() const override { return "managed (cudaMallocManaged)"; }
  void* allocate(size_t nbytes, int device) override {
    require_device(device);
    DeviceGuard guard(device);
    return checked_allocation(
        [&](void** ptr) { return cudaMallocManaged(ptr, nbytes, cudaMemAttachGlobal); },
        "cudaMallocManaged");
  }
  void deallocate(void* ptr, size_t, int) override { cudaFree(ptr); }
  // Managed memory may oversubscribe the device; the driver reports exhaustion.
  size_t capacity(int) const override { return std::numeric_limits<size_t>::max(); }
  void memset(void* dst, int value, size_t nbytes) override {
    DeviceBackend::device_memset(dst, value, nbytes);
  }
};

// Any pair of kinds: with unified addressing the runtime finds the direction from the pointers.
void cuda_copy(void* dst, const void* src, size_t nbytes) {
  EXADNN_CUDA_CHECK(cudaMemcpyAsync(dst, src, nbytes, cudaMemcpyDefault, kStream));
  EXADNN_CUDA_CHECK(cudaStreamSynchronize(kStream));
}

}  // namespace

void register_memory_backends() {
  MemoryManager& mm = MemoryManager::instance();
  mm.register_backend(MemoryKind::device, std::make_unique<DeviceBackend>());
  mm.register_backend(MemoryKind::pinned, std::make_unique<PinnedBackend>());
  mm.register_backend(MemoryKind::managed, std::make_unique<ManagedBackend>());
  for (int d = 0; d < kMemoryKindCount; ++d)
    for (int s = 0; s < kMemoryKindCount; ++s)
      if (d != 0 || s != 0)  // host <-> host stays the MemoryManager's memcpy
        mm.register_copy(static_cast<MemoryKind>(d), static_cast<MemoryKind>(s), &cuda_copy);
}

}  // namespace exadnn::cuda
