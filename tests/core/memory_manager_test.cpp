// Tests the MemoryManager: statistics, cache reuse and limits, size classes, views and from_blob
// (no allocation), huge pages for large host blocks, the errors of a CPU-only build and of
// impossible requests.
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <sstream>
#include <string>
#include <vector>

#include "testing.h"

using namespace exadnn;

namespace {

MemoryManager& mm() {
  return MemoryManager::instance();
}
MemoryStats host_stats() {
  return mm().stats(MemoryKind::host);
}

// A byte count no other test in the process is likely to use, so its size class is ours.
constexpr int64_t kOddElements = 12345;  // f32: 49380 bytes -> 49408-byte class

size_t physical_memory() {
  return static_cast<size_t>(sysconf(_SC_PHYS_PAGES)) * static_cast<size_t>(sysconf(_SC_PAGE_SIZE));
}

// The kernel's flags of the mapping that holds `ptr` (the VmFlags line of /proc/self/smaps, e.g.
// "rd wr mr mw me ac hg"); empty when no mapping holds it.
std::string mapping_flags(const void* ptr) {
  const auto address = reinterpret_cast<uintptr_t>(ptr);
  std::ifstream smaps("/proc/self/smaps");
  std::string line;
  bool inside = false;
  while (std::getline(smaps, line)) {
    unsigned long long begin = 0, end = 0;
    char dash = 0;
    std::istringstream head(line);
    if (head >> std::hex >> begin >> dash >> end && dash == '-' &&
        line.find(':') > line.find(' ')) {
      inside = begin <= address && address < end;
    } else if (inside && line.rfind("VmFlags:", 0) == 0) {
      return line.substr(8);
    }
  }
  return {};
}

}  // namespace

TEST(MemoryManager, StatisticsReturnToBaseline) {
  mm().empty_cache(MemoryKind::host);
  const MemoryStats base = host_stats();
  EXPECT_EQ(base.cached_bytes, 0u);
  const size_t rounded = MemoryManager::round_size(kOddElements * 4);
  {
    Tensor a = empty({kOddElements});
    const MemoryStats s = host_stats();
    EXPECT_EQ(s.bytes_in_use, base.bytes_in_use + rounded);
    EXPECT_EQ(s.live_blocks, base.live_blocks + 1);
    EXPECT_EQ(s.allocation_count, base.allocation_count + 1);
    EXPECT_EQ(s.system_allocations, base.system_allocations + 1);  // the cache was empty
    EXPECT_EQ(s.cache_hits, base.cache_hits);
    EXPECT_GE(s.peak_bytes, s.bytes_in_use);
    Tensor b = empty({3, 5}, DType::f64);
    EXPECT_EQ(host_stats().live_blocks, base.live_blocks + 2);
    EXPECT_EQ(host_stats().bytes_in_use,
              base.bytes_in_use + rounded + MemoryManager::round_size(120));
  }
  const MemoryStats after = host_stats();
  EXPECT_EQ(after.bytes_in_use, base.bytes_in_use);
  EXPECT_EQ(after.live_blocks, base.live_blocks);
  EXPECT_EQ(after.allocation_count, base.allocation_count + 2);
  EXPECT_EQ(after.cached_bytes, rounded + MemoryManager::round_size(120));  // freed into the cache
  mm().empty_cache(MemoryKind::host);
  EXPECT_EQ(host_stats().cached_bytes, 0u);
  EXPECT_EQ(host_stats().bytes_in_use, base.bytes_in_use);
}

TEST(MemoryManager, PeakTracksHighWaterMark) {
  mm().reset_peak(MemoryKind::host);
  const MemoryStats base = host_stats();
  EXPECT_EQ(base.peak_bytes, base.bytes_in_use);
  const size_t big = MemoryManager::round_size(size_t{1} << 22);
  {
    Tensor t = empty({1 << 20});  // 4 MiB of f32
    EXPECT_EQ(host_stats().peak_bytes, base.bytes_in_use + big);
  }
  EXPECT_EQ(host_stats().bytes_in_use, base.bytes_in_use);
  EXPECT_EQ(host_stats().peak_bytes, base.bytes_in_use + big);  // the peak stays
  mm().reset_peak(MemoryKind::host);
  EXPECT_EQ(host_stats().peak_bytes, base.bytes_in_use);
}

TEST(MemoryManager, CacheReusesFreedBlocks) {
  mm().empty_cache(MemoryKind::host);
  void* first_ptr = nullptr;
  { first_ptr = empty({kOddElements}).data_ptr(); }
  const MemoryStats before = host_stats();
  Tensor again = empty({kOddElements});
  const MemoryStats after = host_stats();
  EXPECT_EQ(after.cache_hits, before.cache_hits + 1);
  EXPECT_EQ(after.system_allocations, before.system_allocations);
  EXPECT_EQ(after.allocation_count, before.allocation_count + 1);
  EXPECT_EQ(after.cached_bytes, before.cached_bytes - MemoryManager::round_size(kOddElements * 4));
  EXPECT_EQ(again.data_ptr(), first_ptr);
  // A different size class does not take the cached block.
  Tensor other = empty({kOddElements * 3});
  EXPECT_EQ(host_stats().cache_hits, after.cache_hits);
  EXPECT_EQ(host_stats().system_allocations, after.system_allocations + 1);
}

// An epoch's last, partial batch: a large request whose class has no cached block takes the
// smallest cached block up to 1.5 times its size, and gives it back under the block's own class.
TEST(MemoryManager, LargeRequestReusesALargerCachedBlock) {
  mm().empty_cache(MemoryKind::host);
  const size_t full = MemoryManager::round_size(128 * 9000 * 4);    // a batch of 128
  const size_t partial = MemoryManager::round_size(96 * 9000 * 4);  // the last batch, 96
  const size_t too_big = MemoryManager::round_size(80 * 9000 * 4);  // under 2/3 of `full`
  ASSERT_LT(partial, full);
  void* full_ptr = nullptr;
  { full_ptr = empty({128, 9000}).data_ptr(); }
  const MemoryStats before = host_stats();
  {
    Tensor last = empty({96, 9000});
    EXPECT_EQ(last.data_ptr(), full_ptr);
    EXPECT_EQ(host_stats().system_allocations, before.system_allocations);
    EXPECT_EQ(host_stats().cache_hits, before.cache_hits + 1);
    EXPECT_EQ(host_stats().bytes_in_use, before.bytes_in_use + full);  // the block's own size
    EXPECT_EQ(host_stats().cached_bytes, 0u);
  }
  // Freed under its own class: a full batch finds it again, nothing leaks into `partial`'s.
  EXPECT_EQ(host_stats().cached_bytes, full);
  EXPECT_EQ(host_stats().bytes_in_use, before.bytes_in_use);
  {
    Tensor next = empty({128, 9000});
    EXPECT_EQ(next.data_ptr(), full_ptr);
    EXPECT_EQ(host_stats().system_allocations, before.system_allocations);
  }
  // A request under 2/3 of the block's size does not take it.
  {
    Tensor small = empty({80, 9000});
    EXPECT_NE(small.data_ptr(), full_ptr);
    EXPECT_EQ(host_stats().system_allocations, before.system_allocations + 1);
    EXPECT_EQ(host_stats().bytes_in_use, before.bytes_in_use + too_big);
  }
  // With blocks of both classes cached, a request takes its own class's.
  void* partial_ptr = nullptr;
  {
    Tensor hold_full = empty({128, 9000});  // takes the cached full block
    partial_ptr = mm().allocate(MemoryKind::host, partial);
    mm().deallocate(MemoryKind::host, partial_ptr, partial);
  }
  {
    Tensor own = empty({96, 9000});
    EXPECT_EQ(own.data_ptr(), partial_ptr);
    EXPECT_EQ(host_stats().bytes_in_use, before.bytes_in_use + partial);
  }
  mm().empty_cache(MemoryKind::host);
  EXPECT_EQ(host_stats().bytes_in_use, before.bytes_in_use);
}

TEST(MemoryManager, RawAllocateAndDeallocate) {
  mm().empty_cache(MemoryKind::host);
  const MemoryStats base = host_stats();
  void* p = mm().allocate(MemoryKind::host, 1000);
  ASSERT_NE(p, nullptr);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(p) % 64, 0u);  // 64-byte aligned
  mm().memset(p, MemoryKind::host, 0xab, 1000);
  std::vector<unsigned char> copy(1000);
  mm().copy(copy.data(), MemoryKind::host, p, MemoryKind::host, 1000);
  EXPECT_EQ(copy[0], 0xab);
  EXPECT_EQ(copy[999], 0xab);
  // Zero bytes still gives distinct valid blocks.
  void* z1 = mm().allocate(MemoryKind::host, 0);
  void* z2 = mm().allocate(MemoryKind::host, 0);
  EXPECT_NE(z1, nullptr);
  EXPECT_NE(z1, z2);
  EXPECT_EQ(host_stats().live_blocks, base.live_blocks + 3);
  mm().deallocate(MemoryKind::host, z1, 0);
  mm().deallocate(MemoryKind::host, z2, 0);
  mm().deallocate(MemoryKind::host, p, 1000);
  EXPECT_EQ(host_stats().live_blocks, base.live_blocks);
  EXPECT_EQ(host_stats().bytes_in_use, base.bytes_in_use);
  mm().empty_cache(MemoryKind::host);
}

// Blocks of 2 MiB or more start on a huge-page boundary and carry the kernel's huge-page advice
// ("hg"), unless EXADNN_HUGE_PAGES=0 (ctest core.huge_pages_off runs this test so).
TEST(MemoryManager, LargeHostBlocksAskForHugePages) {
  if (!std::filesystem::exists("/sys/kernel/mm/transparent_hugepage/enabled"))
    GTEST_SKIP() << "this kernel has no transparent huge pages";
  const char* env = std::getenv("EXADNN_HUGE_PAGES");
  const bool wanted = !(env && std::strcmp(env, "0") == 0);
  constexpr size_t kHugePage = size_t{2} << 20;
  mm().empty_cache(MemoryKind::host);
  const size_t nbytes = 3 * kHugePage + 4096;
  void* large = mm().allocate(MemoryKind::host, nbytes);
  void* small = mm().allocate(MemoryKind::host, kHugePage / 2);
  const std::string large_flags = mapping_flags(large);
  ASSERT_FALSE(large_flags.empty()) << "no mapping in /proc/self/smaps holds the block";
  EXPECT_EQ(large_flags.find(" hg") != std::string::npos, wanted) << "flags: " << large_flags;
  if (wanted) EXPECT_EQ(reinterpret_cast<uintptr_t>(large) % kHugePage, 0u);
  EXPECT_EQ(mapping_flags(small).find(" hg"), std::string::npos) << "a block under 2 MiB asked too";
  mm().deallocate(MemoryKind::host, small, kHugePage / 2);
  mm().deallocate(MemoryKind::host, large, nbytes);
  mm().empty_cache(MemoryKind::host);
}

TEST(MemoryManager, ViewsShareStorage) {
  Tensor base = arange(24).reshape({2, 3, 4});
  const MemoryStats before = host_stats();
  const Tensor views[] = {
      base.reshape({6, 4}), base.view({4, 6}),      base.permute({2, 0, 1}),
      base.narrow(1, 1, 2), base.transpose(0, 2),   base.unsqueeze(1).expand({2, 5, 3, 4}),
      base.select(0, 1),    base.slice(2, 0, 4, 2), base.flatten(),
      base.squeeze(),       base.detach(),          base.contiguous()};
  const MemoryStats after = host_stats();
  EXPECT_EQ(after.allocation_count, before.allocation_count);
  EXPECT_EQ(after.bytes_in_use, before.bytes_in_use);
  for (const Tensor& v : views) EXPECT_TRUE(v.shares_storage_with(base)) << v.shape();
  // A write through a view is seen by the base.
  views[3].data<float>()[0] = -5.0f;  // element [0, 1, 0]
  EXPECT_EQ(base.select(0, 0).select(0, 1).select(0, 0).item<float>(), -5.0f);
  EXPECT_FALSE(base.clone().shares_storage_with(base));
}

TEST(MemoryManager, FromBlobDoesNotCopyOrAllocate) {
  std::vector<float> buffer{1, 2, 3, 4, 5, 6};
  int released = 0;
  void* released_ptr = nullptr;
  const MemoryStats before = host_stats();
  Tensor keep;
  {
    Tensor t = from_blob(buffer.data(), {2, 3}, DType::f32, {}, Device::cpu(), [&](void* p) {
      ++released;
      released_ptr = p;
    });
    EXPECT_EQ(host_stats().allocation_count, before.allocation_count);
    EXPECT_EQ(host_stats().live_blocks, before.live_blocks);
    EXPECT_EQ(t.data_ptr(), buffer.data());
    EXPECT_FALSE(t.storage()->owned());
    EXPECT_TRUE(t.is_contiguous());
    EXPECT_EQ(exadnn::testing::values(t), (std::vector<double>{1, 2, 3, 4, 5, 6}));
    buffer[4] = 50.0f;  // caller's write is visible through the tensor
    EXPECT_EQ(t.select(0, 1).select(0, 1).item<double>(), 50.0);
    t.data<float>()[0] = -1.0f;  // tensor's write is visible to the caller
    EXPECT_EQ(buffer[0], -1.0f);
    keep = t.transpose(0, 1);  // a view outlives the original
  }
  EXPECT_EQ(released, 0);
  EXPECT_EQ(keep.select(0, 0).select(0, 1).item<double>(), 4.0);
  keep = Tensor();
  EXPECT_EQ(released, 1);
  EXPECT_EQ(released_ptr, buffer.data());
  EXPECT_EQ(host_stats().live_blocks, before.live_blocks);  // nothing owned was left behind
}

TEST(MemoryManager, FromBlobWithStrides) {
  std::vector<double> buffer{0, 1, 2, 3, 4, 5, 6, 7};
  Tensor t = from_blob(buffer.data(), {2, 2}, DType::f64, {4, 2});  // every other column
  EXPECT_EQ(t.strides(), (Strides{4, 2}));
  EXPECT_FALSE(t.is_contiguous());
  EXPECT_EQ(exadnn::testing::values(t), (std::vector<double>{0, 2, 4, 6}));
  EXPECT_EXADNN_ERROR(from_blob(buffer.data(), {2, 2}, DType::f64, {1}), "from_blob", "strides");
  EXPECT_EXADNN_ERROR(from_blob(nullptr, {2}, DType::f64), "from_blob", "null");
}

// Without the CUDA plugin, asking for pinned, device or managed memory is an error naming the
// plugin; with it, the first request loads it (tests/core/plugin_test.cpp) and the device tests
// cover what follows.
TEST(MemoryManager, NonHostMemoryNeedsCuda) {
#ifdef EXADNN_CUDA_PLUGIN_BUILT
  GTEST_SKIP() << "this build has the CUDA plugin: a request loads it (plugin_test.cpp)";
#endif
  EXPECT_TRUE(mm().available(MemoryKind::host));
  for (MemoryKind k : {MemoryKind::pinned, MemoryKind::device, MemoryKind::managed}) {
    EXPECT_FALSE(mm().available(k));
    EXPECT_EXADNN_ERROR(mm().allocate(k, 256), "MemoryManager", "no CUDA backend",
                        memory_kind_name(k), "256 B");
    EXPECT_EXADNN_ERROR(empty({4}, TensorOptions().memory(k)), "no CUDA backend");
    EXPECT_EQ(mm().stats(k).live_blocks, 0u);
  }
  EXPECT_EXADNN_ERROR(zeros({2}, TensorOptions().device(Device::cuda())), "no CUDA backend");
  EXPECT_EXADNN_ERROR(ones({2, 2}).to(Device::cuda()), "no CUDA backend");
  EXPECT_EXADNN_ERROR(ones({2, 2}).t().to(Device::cuda(1)), "no CUDA backend");
  std::vector<char> a(8), b(8);
  EXPECT_EXADNN_ERROR(mm().copy(a.data(), MemoryKind::device, b.data(), MemoryKind::host, 8),
                      "no CUDA backend");
}

TEST(MemoryManager, MoreThanPhysicalMemoryFails) {
  const MemoryStats before = host_stats();
  // 2^50 floats = 4 PiB.
  EXPECT_EXADNN_ERROR(empty({1LL << 50}), "MemoryManager", "cannot allocate", "4.00 PiB",
                      "more than", "this machine has", format_bytes(physical_memory()));
  EXPECT_EXADNN_ERROR(mm().allocate(MemoryKind::host, physical_memory() + 1), "more than");
  EXPECT_EQ(host_stats().live_blocks, before.live_blocks);
  EXPECT_EQ(host_stats().bytes_in_use, before.bytes_in_use);
}

TEST(MemoryManager, RequestNearSizeMaxFails) {
  // Regression: round_size overflows for requests within 2^60 of SIZE_MAX ((nbytes + step - 1)
  // wraps), so allocate() sees a tiny "rounded" size, passes the capacity check and hands out a
  // block for a request of ~16 EiB (src/core/memory_manager.cpp, MemoryManager::round_size).
  const size_t huge = std::numeric_limits<size_t>::max() - 1000;
  EXPECT_GE(MemoryManager::round_size(huge), huge);
  const MemoryStats before = host_stats();
  void* p = nullptr;
  EXPECT_EXADNN_ERROR(p = mm().allocate(MemoryKind::host, huge), "MemoryManager", "more than");
  if (p != nullptr) mm().deallocate(MemoryKind::host, p, huge);
  EXPECT_EQ(host_stats().live_blocks, before.live_blocks);
}

TEST(MemoryManager, RoundSizeProperties) {
  EXPECT_EQ(MemoryManager::round_size(0), 64u);
  EXPECT_EQ(MemoryManager::round_size(1), 64u);
  EXPECT_EQ(MemoryManager::round_size(64), 64u);
  EXPECT_EQ(MemoryManager::round_size(65), 128u);
  EXPECT_EQ(MemoryManager::round_size(size_t{64} << 10), size_t{64} << 10);
  EXPECT_EQ(MemoryManager::round_size((size_t{64} << 10) + 1), size_t{72} << 10);
  EXPECT_EQ(MemoryManager::round_size(size_t{1} << 30), size_t{1} << 30);
  size_t previous = 0;
  Generator gen(7);
  std::vector<size_t> sizes;
  for (size_t n = 0; n < 300000; n += 1 + n / 64) sizes.push_back(n);
  for (int i = 0; i < 20000; ++i) sizes.push_back(gen.bits_at(gen.advance(1)) >> (24 + i % 30));
  for (size_t n : sizes) {
    const size_t r = MemoryManager::round_size(n);
    ASSERT_GE(r, n);
    ASSERT_EQ(r % 64, 0u) << n;
    ASSERT_EQ(MemoryManager::round_size(r), r) << n;  // a size class maps to itself
    if (n > (size_t{64} << 10))
      ASSERT_LE(r - n, n / 8) << n;  // at most 12.5% slack
    else
      ASSERT_EQ(r, std::max<size_t>(64, (n + 63) / 64 * 64)) << n;
  }
  for (size_t n = 0; n < 2'000'000; n += 997) {  // monotone
    const size_t r = MemoryManager::round_size(n);
    ASSERT_GE(r, previous) << n;
    previous = r;
  }
}

TEST(MemoryManager, EmptyCacheReleasesEverything) {
  { Tensor a = empty({1000}), b = empty({2000}), c = empty({kOddElements}); }
  EXPECT_GT(host_stats().cached_bytes, 0u);
  const MemoryStats before = host_stats();
  mm().empty_cache(MemoryKind::host);
  EXPECT_EQ(host_stats().cached_bytes, 0u);
  EXPECT_EQ(host_stats().bytes_in_use, before.bytes_in_use);
  // With the cache empty the next allocation goes to the system.
  Tensor d = empty({1000});
  EXPECT_EQ(host_stats().system_allocations, before.system_allocations + 1);
  EXPECT_EQ(host_stats().cache_hits, before.cache_hits);
  mm().empty_cache(MemoryKind::pinned);  // no backend: a no-op, not a crash
}

TEST(MemoryManager, SetCacheLimit) {
  mm().empty_cache(MemoryKind::host);
  const size_t small = MemoryManager::round_size(4000), large = MemoryManager::round_size(40000);
  { Tensor a = empty({1000}), b = empty({10000}); }
  EXPECT_EQ(host_stats().cached_bytes, small + large);
  mm().set_cache_limit(MemoryKind::host, small + large - 1);  // trims at once
  EXPECT_LE(host_stats().cached_bytes, small + large - 1);
  mm().set_cache_limit(MemoryKind::host, 0);
  EXPECT_EQ(host_stats().cached_bytes, 0u);
  const MemoryStats base = host_stats();
  { Tensor c = empty({1000}); }  // freed straight back to the system
  EXPECT_EQ(host_stats().cached_bytes, 0u);
  EXPECT_EQ(host_stats().bytes_in_use, base.bytes_in_use);
  { Tensor c = empty({1000}); }
  EXPECT_EQ(host_stats().cache_hits, base.cache_hits);  // nothing was kept to hit
  EXPECT_EQ(host_stats().system_allocations, base.system_allocations + 2);
  mm().set_cache_limit(MemoryKind::host, small);  // room for one small block only
  { Tensor c = empty({1000}), e = empty({10000}); }
  EXPECT_EQ(host_stats().cached_bytes, small);
  mm().set_cache_limit(MemoryKind::host, physical_memory() / 4);  // the default
  mm().empty_cache(MemoryKind::host);
}

TEST(MemoryManager, MemoryLimitRefusesWhatWouldPassItAndCountsOnlyBlocksInUse) {
  mm().empty_cache(MemoryKind::host);
  const size_t in_use = host_stats().bytes_in_use;
  const size_t block = MemoryManager::round_size(size_t{1} << 20);  // 1 MiB of f32
  mm().set_memory_limit(MemoryKind::host, in_use + 2 * block);
  {
    Tensor a = empty({1 << 18}), b = empty({1 << 18});  // exactly at the limit
    try {
      Tensor c = empty({1 << 18});
      ADD_FAILURE() << "a third MiB passed the limit";
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find("limit set by set_memory_limit is"), std::string::npos)
          << e.what();
      EXPECT_NE(std::string(e.what()).find("1.00 MiB"), std::string::npos) << e.what();
    }
    EXPECT_EQ(host_stats().bytes_in_use, in_use + 2 * block);  // nothing leaked by the refusal
  }
  // Freed blocks wait in the cache without counting: the same two fit again, from the cache.
  const MemoryStats before = host_stats();
  { Tensor a = empty({1 << 18}), b = empty({1 << 18}); }
  EXPECT_EQ(host_stats().cache_hits, before.cache_hits + 2);
  // A larger cached block is not taken when it would pass the limit: a 0.9 MiB request finds the
  // 1 MiB blocks only while the limit leaves room for one.
  mm().set_memory_limit(MemoryKind::host, in_use + block - 4096);
  {
    Tensor d = empty({235000});  // 940 000 bytes: under the limit, its own class not cached
    EXPECT_EQ(host_stats().bytes_in_use, in_use + MemoryManager::round_size(940000));
  }
  mm().set_memory_limit(MemoryKind::host, ~size_t{0});
  { Tensor big = empty({1 << 20}); }  // the limit is gone
  mm().empty_cache(MemoryKind::host);
}

TEST(MemoryManager, FormatBytes) {
  EXPECT_EQ(format_bytes(0), "0 B");
  EXPECT_EQ(format_bytes(512), "512 B");
  EXPECT_EQ(format_bytes(1536), "1.50 KiB");
  EXPECT_EQ(format_bytes(size_t{3} << 30), "3.00 GiB");
  EXPECT_EQ(format_bytes(size_t{1} << 52), "4.00 PiB");
  EXPECT_STREQ(memory_kind_name(MemoryKind::pinned), "pinned");
}
