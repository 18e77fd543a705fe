// The one lock around every libhdf5 call of the loader (Debian's libhdf5 is not thread-safe).
#pragma once

#include <mutex>

namespace cbed::shard {
std::mutex& hdf5_lock();
}
