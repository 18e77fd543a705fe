#include "exadnn/async/atomic_ops.h"

#include <atomic>
#include <bit>

namespace exadnn::async {

namespace {
float load(const float* p) {
  return std::atomic_ref<float>(*const_cast<float*>(p)).load(std::memory_order_relaxed);
}
void store(float* p, float v) {
  std::atomic_ref<float>(*p).store(v, std::memory_order_relaxed);
}
bool same_bits(float a, float b) {
  return std::bit_cast<uint32_t>(a) == std::bit_cast<uint32_t>(b);
}
}  // namespace

void atomic_snapshot(const float* shared, float* local, float* snapshot, int64_t n) {
  for (int64_t i = 0; i < n; ++i) local[i] = snapshot[i] = load(shared + i);
}

void atomic_publish(float* shared, const float* local, const float* snapshot, int64_t n) {
  for (int64_t i = 0; i < n; ++i) {
    const float mine = local[i], before = snapshot[i];
    if (same_bits(mine, before)) continue;
    const float now = load(shared + i);
    store(shared + i, same_bits(now, before) ? mine : now + (mine - before));
  }
}

}  // namespace exadnn::async
