// MemoryManager: the one place that allocates, frees, copies and fills tensor memory.
//
// Four kinds of memory: host (64-byte aligned), pinned host, device and managed. Each kind has a
// MemoryBackend that does the raw work (the CPU one is built in; a CUDA build registers the other
// three) and a caching allocator in front of it: freed blocks are kept per size class and reused,
// so a training loop that allocates the same shapes every step stops calling the system allocator.
// A request above 64 KiB whose class has no cached block takes the smallest cached one up to 1.5
// times its size, so an epoch's last, partial batch reuses the full batches' blocks.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

namespace exadnn {

/// Kind of memory a block lives in.
enum class MemoryKind : uint8_t { host, pinned, device, managed };
inline constexpr int kMemoryKindCount = 4;
const char* memory_kind_name(MemoryKind k) noexcept;

/// Allocation statistics of one memory kind.
struct MemoryStats {
  size_t bytes_in_use = 0;        ///< bytes of the blocks handed out and not yet freed
  size_t peak_bytes = 0;          ///< highest bytes_in_use since start or reset_peak
  size_t allocation_count = 0;    ///< number of allocate() calls served
  size_t live_blocks = 0;         ///< blocks handed out and not yet freed
  size_t cached_bytes = 0;        ///< bytes held in the cache, ready for reuse
  size_t cache_hits = 0;          ///< allocate() calls served from the cache
  size_t system_allocations = 0;  ///< calls that reached the backend's raw allocator
};

/// The raw allocator and copy engine of one memory kind.
class MemoryBackend {
 public:
  virtual ~MemoryBackend() = default;
  virtual const char* name() const = 0;
  /// Returns nullptr when the memory is exhausted; throws only for invalid requests.
  virtual void* allocate(size_t nbytes, int device) = 0;
  virtual void deallocate(void* ptr, size_t nbytes, int device) = 0;
  /// Total capacity in bytes (physical memory for host kinds), used to reject impossible requests.
  virtual size_t capacity(int device) const = 0;
  /// Sets `nbytes` bytes at `dst` to `value`.
  virtual void memset(void* dst, int value, size_t nbytes) = 0;
};

/// Copies between two memory kinds (host->device, device->host, ...).
using CopyFunction = void (*)(void* dst, const void* src, size_t nbytes);

/// Process-wide memory manager (thread safe).
class MemoryManager {
 public:
  static MemoryManager& instance();

  /// Allocates `nbytes` of `kind` memory on `device`; throws exadnn::Error naming the kind and size
  /// if the build lacks the kind or the memory is exhausted. Zero bytes gives a valid unique block.
  void* allocate(MemoryKind kind, size_t nbytes, int device = 0);
  /// Returns a block from allocate() (same kind, size and device) to the cache.
  void deallocate(MemoryKind kind, void* ptr, size_t nbytes, int device = 0) noexcept;
  /// Copies nbytes from src (of kind src_kind) to dst (of kind dst_kind).
  void copy(void* dst, MemoryKind dst_kind, const void* src, MemoryKind src_kind, size_t nbytes);
  /// Sets nbytes at dst to the byte `value`.
  void memset(void* dst, MemoryKind kind, int value, size_t nbytes);

  MemoryStats stats(MemoryKind kind) const;
  void reset_peak(MemoryKind kind);
  /// Gives every cached (free) block of `kind` back to the system.
  void empty_cache(MemoryKind kind);
  /// Caps the bytes kept in the cache of `kind`; blocks beyond it are freed at once.
  void set_cache_limit(MemoryKind kind, size_t bytes);
  /// Caps the bytes of `kind` in use (cached blocks do not count): an allocation that would pass
  /// the cap throws exadnn::Error naming the request, the bytes in use and the cap, as a machine
  /// with that much memory would run out. For tests and for sharing a node; SIZE_MAX (the
  /// default) removes the cap. Blocks already in use stay valid when the cap is set below them.
  void set_memory_limit(MemoryKind kind, size_t bytes);
  /// True when a backend for `kind` is registered (host always; the rest with CUDA).
  bool available(MemoryKind kind) const;

  /// Installs the backend of a memory kind (the CUDA library does this for device/pinned/managed).
  void register_backend(MemoryKind kind, std::unique_ptr<MemoryBackend> backend);
  /// Installs the copy routine for (dst kind, src kind); host<->host is built in.
  void register_copy(MemoryKind dst_kind, MemoryKind src_kind, CopyFunction fn);

  /// Size class a request of nbytes is rounded up to.
  static size_t round_size(size_t nbytes) noexcept;

 private:
  MemoryManager();
  struct Pool;
  Pool& pool(MemoryKind kind) const;
  std::unique_ptr<Pool> pools_[kMemoryKindCount];
  CopyFunction copies_[kMemoryKindCount][kMemoryKindCount] = {};
};

/// "1.50 GiB", "512 B": sizes in error messages and logs.
std::string format_bytes(size_t nbytes);

}  // namespace exadnn
