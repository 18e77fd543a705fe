// Which cuDNN algorithm a convolution runs: measured once per problem (device, direction, shape,
// dtype, math mode) with cudnnFind*AlgorithmEx on the call's own buffers, then remembered for the
// process (as PyTorch's cudnn.benchmark does). The fastest deterministic algorithm is taken, or
// the fastest of any where none is deterministic.
//
// The first GPU run (H200, cuDNN 9.14) showed why: asking cuDNN's heuristics
// (cudnnGet*Algorithm_v7) at every call made the example CNN's second convolution take 2.7 ms
// forward and 3.3 ms backward at batch 128, far from the device's rate.
#pragma once

#include <cstddef>
#include <functional>
#include <string>

#include "exadnn/backend/nn_kernels.h"
#include "exadnn/core/dtype.h"

namespace exadnn::cuda {

/// A measured choice: cuDNN's algorithm enum (as an int) and the workspace it needs.
struct ConvAlgorithm {
  int algo = 0;
  size_t workspace_bytes = 0;
};

/// The direction of a convolution call (each has its own algorithms).
enum class ConvDirection { forward, backward_data, backward_weights };

/// The remembered choice for this problem, or `measure()`'s, which is then remembered.
/// `tf32` is whether the call may use TF32 tensor cores (it changes the candidates).
ConvAlgorithm cached_conv_algorithm(int device, ConvDirection direction, const Conv2dGeometry& g,
                                    DType dtype, bool tf32,
                                    const std::function<ConvAlgorithm()>& measure);

/// The workspace cudnnFind*AlgorithmEx may use while measuring: algorithms that need more are
/// not tried. Where it cannot be allocated, only those needing none are (and that choice stays).
constexpr size_t kConvFindWorkspaceBytes = size_t{256} << 20;

}  // namespace exadnn::cuda
