#include "exadnn/core/memory_manager.h"

#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iterator>
#include <map>
#include <unordered_map>

#include "exadnn/core/error.h"
#include "exadnn/core/plugin.h"

namespace exadnn {

const char* memory_kind_name(MemoryKind k) noexcept {
  switch (k) {
    case MemoryKind::host:
      return "host";
    case MemoryKind::pinned:
      return "pinned";
    case MemoryKind::device:
      return "device";
    case MemoryKind::managed:
      return "managed";
  }
  return "?";
}

std::string format_bytes(size_t nbytes) {
  static constexpr const char* kUnits[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB"};
  double v = static_cast<double>(nbytes);
  int unit = 0;
  while (v >= 1024.0 && unit < 5) {
    v /= 1024.0;
    ++unit;
  }
  char buf[32];
  std::snprintf(buf, sizeof buf, unit == 0 ? "%.0f %s" : "%.2f %s", v, kUnits[unit]);
  return buf;
}

namespace {

// Host memory: 64-byte aligned blocks from the C library. Blocks of a huge page or more start on
// a huge-page boundary and ask the kernel for transparent huge pages over their whole huge pages
// (madvise; where THP is "madvise"-only, as on many HPC and cloud kernels, nothing else gets them):
// weights, their gradients and optimizer state of large layers are streamed every step, and 2 MiB
// pages cut their TLB misses. EXADNN_HUGE_PAGES=0 keeps 4 KiB pages.
constexpr size_t kHugePage = size_t{2} << 20;

bool huge_pages_wanted() {
  const char* env = std::getenv("EXADNN_HUGE_PAGES");
  return !(env && std::strcmp(env, "0") == 0);
}

class HostBackend final : public MemoryBackend {
 public:
  const char* name() const override { return "host (aligned_alloc)"; }
  void* allocate(size_t nbytes, int /*device*/) override {
    if (nbytes < kHugePage || !huge_pages_) return std::aligned_alloc(64, nbytes);
    void* ptr = nullptr;
    if (posix_memalign(&ptr, kHugePage, nbytes) != 0) return nullptr;
    madvise(ptr, nbytes / kHugePage * kHugePage, MADV_HUGEPAGE);  // advice: a refusal is harmless
    return ptr;
  }
  void deallocate(void* ptr, size_t, int) override { std::free(ptr); }
  size_t capacity(int) const override {
    const long pages = sysconf(_SC_PHYS_PAGES);
    const long page_size = sysconf(_SC_PAGE_SIZE);
    return static_cast<size_t>(pages) * static_cast<size_t>(page_size);
  }
  void memset(void* dst, int value, size_t nbytes) override { std::memset(dst, value, nbytes); }

 private:
  bool huge_pages_ = huge_pages_wanted();
};

void host_copy(void* dst, const void* src, size_t nbytes) {
  std::memcpy(dst, src, nbytes);
}

uint64_t cache_key(size_t rounded, int device) {
  return (static_cast<uint64_t>(rounded) << 8) | static_cast<uint64_t>(device & 0xff);
}
size_t key_size(uint64_t key) {
  return static_cast<size_t>(key >> 8);
}
int key_device(uint64_t key) {
  return static_cast<int>(key & 0xff);
}

// A request above this size may take a cached block of a larger class, up to 1.5 times its own
// (so at most a third of the block idles), when its own class has none: the last, partial batch
// of an epoch (96 of 128 for Fashion-MNIST) then reuses the full batches' blocks instead of
// caching a second set for the rest of the run. Below it the classes are 64 B apart and such a
// search would walk hundreds of them for little memory.
constexpr size_t kOversizeFrom = size_t{64} << 10;
size_t largest_block_for(size_t rounded) {
  return rounded + rounded / 2;
}

}  // namespace

// One memory kind: its backend plus a cache of freed blocks keyed by (size class, device),
// ordered so that the next larger class is found by upper_bound.
struct MemoryManager::Pool {
  MemoryKind kind;
  std::unique_ptr<MemoryBackend> backend;
  mutable std::mutex mutex;
  std::map<uint64_t, std::vector<void*>> free_blocks;  // no empty vectors
  // Blocks handed out for a smaller request (see kOversizeFrom): pointer -> the block's own size,
  // which deallocate() files it under instead of the size its caller passes.
  std::unordered_map<void*, size_t> oversized;
  MemoryStats stats;
  size_t cache_limit = ~size_t{0};
  size_t memory_limit = ~size_t{0};  // on bytes_in_use (set_memory_limit)
  size_t capacity = 0;  // of device 0, read once from the backend (a system call on the host)

  // Bytes that may still be handed out under memory_limit.
  size_t room() const { return memory_limit - std::min(memory_limit, stats.bytes_in_use); }

  // Frees cached blocks until cached_bytes <= target. Caller holds the mutex.
  void trim_to(size_t target) {
    for (auto it = free_blocks.begin(); it != free_blocks.end() && stats.cached_bytes > target;) {
      const size_t rounded = key_size(it->first);
      const int device = key_device(it->first);
      auto& blocks = it->second;
      while (!blocks.empty() && stats.cached_bytes > target) {
        backend->deallocate(blocks.back(), rounded, device);
        blocks.pop_back();
        stats.cached_bytes -= rounded;
      }
      it = blocks.empty() ? free_blocks.erase(it) : std::next(it);
    }
  }

  // A cached block for a request of size class `rounded` on `device`: its own class first, else
  // the smallest larger one up to largest_block_for (above kOversizeFrom only) that keeps the
  // bytes in use within memory_limit. Sets `block_size` to the block's class; nullptr when none
  // fits. Caller holds the mutex.
  void* take_cached(size_t rounded, int device, size_t& block_size) {
    auto it = free_blocks.find(cache_key(rounded, device));
    if (it == free_blocks.end() && rounded > kOversizeFrom) {
      const size_t largest = std::min(largest_block_for(rounded), room());
      for (it = free_blocks.upper_bound(cache_key(rounded, device));
           it != free_blocks.end() && key_size(it->first) <= largest; ++it)
        if (key_device(it->first) == device) break;
      if (it != free_blocks.end() && key_size(it->first) > largest) it = free_blocks.end();
    }
    if (it == free_blocks.end()) return nullptr;
    block_size = key_size(it->first);
    void* ptr = it->second.back();
    if (block_size != rounded) oversized.emplace(ptr, block_size);  // may throw: nothing moved yet
    it->second.pop_back();
    if (it->second.empty()) free_blocks.erase(it);
    stats.cached_bytes -= block_size;
    ++stats.cache_hits;
    return ptr;
  }
};

MemoryManager::MemoryManager() {
  for (int k = 0; k < kMemoryKindCount; ++k) {
    pools_[k] = std::make_unique<Pool>();
    pools_[k]->kind = static_cast<MemoryKind>(k);
  }
  Pool& host = *pools_[static_cast<int>(MemoryKind::host)];
  host.backend = std::make_unique<HostBackend>();
  host.capacity = host.backend->capacity(0);
  host.cache_limit = host.capacity / 4;  // never hoard more than a quarter of RAM
  copies_[0][0] = host_copy;
}

MemoryManager& MemoryManager::instance() {
  // Leaked on purpose: tensors in static objects may be freed after main() returns.
  static MemoryManager* manager = new MemoryManager();
  return *manager;
}

MemoryManager::Pool& MemoryManager::pool(MemoryKind kind) const {
  return *pools_[static_cast<int>(kind)];
}

size_t MemoryManager::round_size(size_t nbytes) noexcept {
  if (nbytes <= 64) return 64;
  if (nbytes > (size_t{1} << 62)) return nbytes;  // beyond any machine; capacity check rejects it
  if (nbytes <= (size_t{64} << 10)) return (nbytes + 63) & ~size_t{63};
  // Above 64 KiB: eight size classes per power of two (at most 12.5% slack).
  size_t power = size_t{1} << (63 - __builtin_clzll(nbytes - 1));
  const size_t step = power / 8;
  return (nbytes + step - 1) / step * step;
}

namespace {

// Device, pinned and managed memory come from the CUDA plugin, loaded the first time one is
// asked for (before any pool lock: its registrar registers backends). "" when `kind` has a
// backend now, else why not.
std::string missing_backend(const MemoryManager& manager, MemoryKind kind) {
  if (manager.available(kind)) return "";
  if (kind != MemoryKind::host && load_plugin("cuda") && manager.available(kind)) return "";
  return kind == MemoryKind::host
             ? "no host backend"
             : "no CUDA backend (only host memory is available): " + plugin_error("cuda");
}

}  // namespace

void* MemoryManager::allocate(MemoryKind kind, size_t nbytes, int device) {
  const std::string missing = missing_backend(*this, kind);
  EXADNN_CHECK(missing.empty(), "MemoryManager", "cannot allocate ", format_bytes(nbytes), " of ",
               memory_kind_name(kind), " memory: ", missing);
  Pool& p = pool(kind);
  std::lock_guard<std::mutex> lock(p.mutex);
  const size_t requested = round_size(nbytes);
  EXADNN_CHECK(requested <= p.room(), "MemoryManager", "cannot allocate ", format_bytes(nbytes),
               " of ", memory_kind_name(kind), " memory: ", format_bytes(p.stats.bytes_in_use),
               " are in use and the limit set by set_memory_limit is ",
               format_bytes(p.memory_limit));
  size_t rounded = requested;  // the size class of the block handed out
  void* ptr = p.take_cached(requested, device, rounded);
  if (ptr == nullptr) {
    const size_t capacity = device == 0 ? p.capacity : p.backend->capacity(device);
    EXADNN_CHECK(rounded <= capacity, "MemoryManager", "cannot allocate ", format_bytes(nbytes),
                 " of ", memory_kind_name(kind), " memory: that is more than the ",
                 format_bytes(capacity), " this machine has");
    ptr = p.backend->allocate(rounded, device);
    if (ptr == nullptr) {  // give the cache back and try once more
      p.trim_to(0);
      ptr = p.backend->allocate(rounded, device);
    }
    EXADNN_CHECK(ptr != nullptr, "MemoryManager", "out of ", memory_kind_name(kind),
                 " memory allocating ", format_bytes(nbytes), " (",
                 format_bytes(p.stats.bytes_in_use), " in use)");
    ++p.stats.system_allocations;
  }
  p.stats.bytes_in_use += rounded;
  p.stats.peak_bytes = std::max(p.stats.peak_bytes, p.stats.bytes_in_use);
  ++p.stats.allocation_count;
  ++p.stats.live_blocks;
  return ptr;
}

void MemoryManager::deallocate(MemoryKind kind, void* ptr, size_t nbytes, int device) noexcept {
  if (ptr == nullptr) return;
  Pool& p = pool(kind);
  std::lock_guard<std::mutex> lock(p.mutex);
  size_t rounded = round_size(nbytes);
  if (!p.oversized.empty()) {
    auto it = p.oversized.find(ptr);
    if (it != p.oversized.end()) {
      rounded = it->second;
      p.oversized.erase(it);
    }
  }
  p.stats.bytes_in_use -= rounded;
  --p.stats.live_blocks;
  if (rounded > p.cache_limit) {
    p.backend->deallocate(ptr, rounded, device);
    return;
  }
  try {
    p.free_blocks[cache_key(rounded, device)].push_back(ptr);
  } catch (...) {  // no memory to grow the free list: release the block instead
    p.backend->deallocate(ptr, rounded, device);
    return;
  }
  p.stats.cached_bytes += rounded;
  if (p.stats.cached_bytes > p.cache_limit) p.trim_to(p.cache_limit);
}

void MemoryManager::copy(void* dst, MemoryKind dst_kind, const void* src, MemoryKind src_kind,
                         size_t nbytes) {
  if (nbytes == 0) return;
  const std::string missing = missing_backend(*this, dst_kind) + missing_backend(*this, src_kind);
  CopyFunction fn = copies_[static_cast<int>(dst_kind)][static_cast<int>(src_kind)];
  EXADNN_CHECK(fn != nullptr, "MemoryManager", "no copy from ", memory_kind_name(src_kind), " to ",
               memory_kind_name(dst_kind),
               " memory: ", missing.empty() ? "none registered" : missing);
  fn(dst, src, nbytes);
}

void MemoryManager::memset(void* dst, MemoryKind kind, int value, size_t nbytes) {
  const std::string missing = missing_backend(*this, kind);
  EXADNN_CHECK(missing.empty(), "MemoryManager", "cannot fill ", memory_kind_name(kind),
               " memory: ", missing);
  Pool& p = pool(kind);
  p.backend->memset(dst, value, nbytes);
}

MemoryStats MemoryManager::stats(MemoryKind kind) const {
  Pool& p = pool(kind);
  std::lock_guard<std::mutex> lock(p.mutex);
  return p.stats;
}

void MemoryManager::reset_peak(MemoryKind kind) {
  Pool& p = pool(kind);
  std::lock_guard<std::mutex> lock(p.mutex);
  p.stats.peak_bytes = p.stats.bytes_in_use;
}

void MemoryManager::empty_cache(MemoryKind kind) {
  Pool& p = pool(kind);
  std::lock_guard<std::mutex> lock(p.mutex);
  if (p.backend) p.trim_to(0);
}

void MemoryManager::set_cache_limit(MemoryKind kind, size_t bytes) {
  Pool& p = pool(kind);
  std::lock_guard<std::mutex> lock(p.mutex);
  p.cache_limit = bytes;
  if (p.backend) p.trim_to(bytes);
}

void MemoryManager::set_memory_limit(MemoryKind kind, size_t bytes) {
  Pool& p = pool(kind);
  std::lock_guard<std::mutex> lock(p.mutex);
  p.memory_limit = bytes;
}

bool MemoryManager::available(MemoryKind kind) const {
  return pool(kind).backend != nullptr;
}

void MemoryManager::register_backend(MemoryKind kind, std::unique_ptr<MemoryBackend> backend) {
  Pool& p = pool(kind);
  std::lock_guard<std::mutex> lock(p.mutex);
  EXADNN_CHECK(p.stats.live_blocks == 0, "MemoryManager", "cannot replace the ",
               memory_kind_name(kind), " backend while ", p.stats.live_blocks, " blocks are live");
  if (p.backend) p.trim_to(0);
  p.backend = std::move(backend);
  p.capacity = p.backend->capacity(0);
}

void MemoryManager::register_copy(MemoryKind dst_kind, MemoryKind src_kind, CopyFunction fn) {
  copies_[static_cast<int>(dst_kind)][static_cast<int>(src_kind)] = fn;
}

}  // namespace exadnn
