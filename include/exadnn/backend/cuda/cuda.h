// The CUDA backend's public API (library exadnn_cuda, CMake target exadnn::cuda). Loading the
// library is what enables CUDA: it registers the device, pinned and managed memory kinds and the
// cuda kernels, so `Tensor::to(Device::cuda())` and every op on cuda tensors work. A program
// links it, or lets libexadnn load it as a plugin on the first device allocation (core/plugin.h).
// These functions (for programs that link it) are only for questions and settings beyond that.
#pragma once

#include <string>

namespace exadnn::cuda {

/// Number of CUDA devices visible to this process; 0 when there is none or no usable driver.
int device_count() noexcept;

/// Why no device is visible ("" when one is), e.g. "cudaGetDeviceCount: no CUDA-capable device
/// is detected".
std::string unavailable_reason();

/// Multi-line report of the CUDA build and the visible devices (what `exadnn info` prints).
std::string report();

/// Waits until every kernel and copy queued on `device` has finished.
void synchronize(int device = 0);

/// Whether this thread's fp32 GEMMs (MatmulPrecision::fp32) on CUDA may use TF32 tensor cores
/// (10-bit mantissa products, f32 sums). Off until set; other threads are not affected.
bool tf32_enabled() noexcept;
/// Sets this thread's TF32 opt-in (see tf32_enabled).
void set_tf32_enabled(bool enabled) noexcept;

/// Enables (or disables) TF32 for this thread for the guard's lifetime.
class Tf32Guard {
 public:
  explicit Tf32Guard(bool enabled = true) : previous_(tf32_enabled()) { set_tf32_enabled(enabled); }
  ~Tf32Guard() { set_tf32_enabled(previous_); }
  Tf32Guard(const Tf32Guard&) = delete;
  Tf32Guard& operator=(const Tf32Guard&) = delete;

 private:
  bool previous_;
};

}  // namespace exadnn::cuda
