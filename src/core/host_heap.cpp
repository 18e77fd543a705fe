// glibc's malloc told to keep freed memory (core/host_heap.h).
#include "exadnn/core/host_heap.h"

#include <cstdlib>
#include <cstring>
#include <initializer_list>

#if defined(__GLIBC__)
#include <malloc.h>
#endif

namespace exadnn {

namespace {

// Whether the user set malloc's thresholds through the environment (glibc reads these itself).
bool environment_sets_malloc() {
  for (const char* name : {"MALLOC_MMAP_THRESHOLD_", "MALLOC_TRIM_THRESHOLD_", "MALLOC_TOP_PAD_"})
    if (std::getenv(name) != nullptr) return true;
  const char* tunables = std::getenv("GLIBC_TUNABLES");
  return tunables != nullptr && std::strstr(tunables, "glibc.malloc.") != nullptr;
}

}  // namespace

bool keep_freed_host_memory() {
  const char* env = std::getenv("EXADNN_KEEP_FREED_MEMORY");
  if ((env != nullptr && std::strcmp(env, "0") == 0) || environment_sets_malloc()) return false;
#if defined(__GLIBC__)
  // 32 MiB: glibc's own ceiling for its dynamic mmap threshold (DEFAULT_MMAP_THRESHOLD_MAX on
  // 64-bit); larger blocks still get their own mapping, returned when freed.
  const bool mmap_set = mallopt(M_MMAP_THRESHOLD, 32 << 20) == 1;
  const bool trim_set = mallopt(M_TRIM_THRESHOLD, -1) == 1;  // -1: never trim (mallopt(3))
  return mmap_set && trim_set;
#else
  return false;
#endif
}

}  // namespace exadnn
