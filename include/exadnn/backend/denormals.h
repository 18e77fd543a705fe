// Subnormal floats flushed to zero (x86 MXCSR: FTZ, results; DAZ, operands). On this project's
// CPUs a GEMM whose operands are subnormal runs ~200x slower (1.57 ms -> 331 ms for 512^3 f32 on
// one thread of the 2-core EPYC; the same with FTZ/DAZ: 1.60 ms), and training drifts into them
// (tiny gradients, Adam's second moments), so the Trainer flushes them while it runs
// (`flush_denormals: true`, the config's default). Values below 1.18e-38 become 0: what every
// deep-learning framework's CPU kernels accept (TensorFlow flushes in its own threads too).
//
//   { exadnn::FlushDenormalsScope flush(true);  ... ops ... }  // restored at the end
//
// The setting is per thread: a scope sets the calling thread and exadnn's OpenMP workers (which
// oneDNN and exadnn's loops run on), and threads created meanwhile inherit it. A program's own
// code outside the scope is left as it was. On CPUs other than x86 these are no-ops.
#pragma once

namespace exadnn {

/// Sets (or clears) FTZ and DAZ on the calling thread and on the OpenMP workers.
void set_flush_denormals(bool on);
/// Whether the calling thread flushes subnormals (false on CPUs other than x86).
bool flush_denormals();

/// set_flush_denormals(on) for the scope's life, then the calling thread's previous setting back
/// (on it and the workers).
class FlushDenormalsScope {
 public:
  explicit FlushDenormalsScope(bool on) : previous_(flush_denormals()) { set_flush_denormals(on); }
  ~FlushDenormalsScope() { set_flush_denormals(previous_); }
  FlushDenormalsScope(const FlushDenormalsScope&) = delete;
  FlushDenormalsScope& operator=(const FlushDenormalsScope&) = delete;

 private:
  bool previous_;
};

}  // namespace exadnn
