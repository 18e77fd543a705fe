// ParameterSlab: every parameter of a module moved into one contiguous f32 buffer, so a whole
// model can be read, written or reduced with one loop (shared-memory async SGD, fused copies).
#pragma once

#include <cstdint>
#include <vector>

#include "exadnn/core/tensor.h"

namespace exadnn::nn {
class Module;
}

namespace exadnn::async {

/// One contiguous host f32 buffer holding all parameters of a module.
///
/// Making a slab rebinds each parameter (its TensorImpl, so the module's members, optimizers and
/// every other alias follow) to a dense range of the slab, values unchanged. Each range starts
/// on a 64-byte boundary; the padding between ranges is zero and stays so. A parameter that
/// appears twice (tied weights) gets one range.
class ParameterSlab {
 public:
  /// Rebinds the parameters of `module` (f32, CPU; an Error names the first that is not).
  explicit ParameterSlab(const nn::Module& module);

  /// The slab as a 1-d tensor [size()].
  const Tensor& flat() const { return flat_; }
  float* data() const { return flat_.data<float>(); }
  /// Elements, padding included.
  int64_t size() const { return flat_.numel(); }
  /// The distinct parameters, in the module's order, and where each starts in the slab.
  const std::vector<Tensor>& params() const { return params_; }
  const std::vector<int64_t>& offsets() const { return offsets_; }
  /// Writes each parameter's gradient at its offset in `out` [size()] (zeros where a parameter
  /// has no gradient; padding untouched).
  void gather_grads(float* out) const;

 private:
  Tensor flat_;
  std::vector<Tensor> params_;
  std::vector<int64_t> offsets_;
};

}  // namespace exadnn::async
