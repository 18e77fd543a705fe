// The one lock around every libhdf5 call of the loader: its open-file cache and its error-stack
// settings change under it (the library itself is built thread-safe by Debian).
#pragma once

#include <mutex>

namespace cbed::shard {
std::mutex& hdf5_lock();
}
