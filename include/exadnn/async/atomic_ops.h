// Element-wise access to parameters that other threads update at the same time (Hogwild):
// relaxed atomic loads and stores of each float, so every read sees some whole value another
// thread wrote, and no access is a data race (ThreadSanitizer stays quiet). No locks, no
// read-modify-write instructions: two threads writing one element at once may lose one change,
// which Hogwild accepts.
#pragma once

#include <cstdint>

namespace exadnn::async {

/// local[i] = snapshot[i] = shared[i] for i < n, each element read once (relaxed).
void atomic_snapshot(const float* shared, float* local, float* snapshot, int64_t n);

/// Publishes a worker's change: for each element where local differs (bitwise) from snapshot,
/// the state the worker started from, writes local[i] if shared[i] still equals snapshot[i]
/// (no other thread changed it since) and shared[i] + (local[i] - snapshot[i]) otherwise.
/// Elements the worker did not change are not written (no cache-line traffic). With one thread
/// the result is exactly `local`.
void atomic_publish(float* shared, const float* local, const float* snapshot, int64_t n);

}  // namespace exadnn::async
