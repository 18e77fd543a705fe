// Memory formats of a 4-D [N, C, H, W] tensor. The logical shape and the values are the same in
// every format; only the order of the elements in memory differs, as the strides say:
//   contiguous     packed NCHW, strides [C·H·W, H·W, W, 1]
//   channels_last  packed NHWC, strides [H·W·C, 1, W·C, C] (what oneDNN's brgconv convolutions
//                  read and write without a reorder)
// Every op accepts either (a strided view is a view); the fused convolution ops read and write
// channels-last without converting it, and elementwise ops keep it.
#pragma once

#include <cstdint>

#include "exadnn/core/tensor.h"

namespace exadnn {

enum class MemoryFormat : uint8_t { contiguous, channels_last };

/// True for a 4-D tensor laid out as packed NHWC (size-1 dimensions' strides ignored, as
/// is_contiguous() does; so a tensor with C = 1, or H = W = 1, is both).
bool is_channels_last(const Tensor& t);

/// True when the elements fill [offset, offset + numel) of the storage exactly once, in some
/// order of the dimensions: a contiguous tensor, a channels-last one, any permutation of a packed
/// tensor.
bool is_dense(const Tensor& t);

}  // namespace exadnn
