// The memory a training run will need, estimated layer by layer while the model is built, so a
// model that cannot fit is refused with the figures before anything large is allocated (instead
// of being killed by the kernel minutes later without a word).
#pragma once

#include <cstdint>
#include <string>

#include "exadnn/core/dims.h"
#include "exadnn/train/layers.h"
#include "exadnn/train/optimizers.h"

namespace exadnn::train {

/// Bytes of memory this process may still use: MemAvailable of /proc/meminfo, bounded by the
/// cgroup's memory.max where one is set (0 if neither can be read).
double available_memory_bytes();

/// What one step holds, counted in f32 values: parameters (with their gradients and the
/// optimizer's per-parameter buffers) and one batch's activations (kept for backward, and their
/// gradients).
class MemoryBudget {
 public:
  /// `optimizer_buffers`: per-parameter state tensors of the optimizer (SGD with momentum 1,
  /// Adam 2); `available`: bytes that may be used (0: no check); `sharing`: the processes that
  /// share them (MPI ranks on one node), each budgeted `available / sharing`.
  MemoryBudget(int64_t batch_size, int optimizer_buffers, double available, int sharing = 1);

  /// parallel.spatial: every example's feature maps are split into `parts` bands up to the
  /// model's first flatten or global_avgpool, so this process holds 1/parts of the activations of
  /// the layers before it (the flatten's gathered output and everything after are whole).
  void split_images(int parts);

  /// The buffers per parameter of the config's optimizer.
  static int optimizer_buffers(const OptimizerSpec& o);

  /// Adds a layer about to be built: its parameter count and one example's output size. Throws
  /// an Error naming the layer, its line and every figure when the total exceeds what is
  /// available.
  void add_layer(const LayerSpec& spec, int64_t parameters, int64_t output_numel);

  double total_bytes() const;
  std::string describe() const;  ///< "parameters 1.2 GB, gradients..., activations ..."

 private:
  // This process's share of what is available, and the message that says so.
  double share() const { return available_ / sharing_; }
  std::string describe_share() const;

  int64_t batch_size_;
  int optimizer_buffers_;
  double available_;
  int sharing_;
  int image_parts_ = 1;  // split_images
  bool banded_ = true;   // no flatten or global_avgpool added yet
  double parameters_ = 0, activations_per_example_ = 0;
};

}  // namespace exadnn::train
