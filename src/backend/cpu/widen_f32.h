// 16-bit (f16, bf16) tensors widened to f32 for the layer kernels that exist only in f32 (internal
// to the CPU backend): widen the inputs (exact), run the f32 kernel, round each output once into
// the 16-bit tensor the op allocated. Sums are then f32 sums, as in a native 16-bit kernel, at f32
// speed plus the conversions.
#pragma once

#include "exadnn/core/tensor.h"

namespace exadnn::cpu {

/// True for f16 and bf16.
bool is_16bit(DType dtype);

/// A dense f32 copy of a dense 16-bit tensor; f32 and undefined tensors pass unchanged.
Tensor widen(const Tensor& t);

/// An uninitialised dense f32 tensor of t's shape for an output the f32 kernel writes; undefined
/// stays undefined.
Tensor f32_output(const Tensor& t);

/// Rounds the f32 result `wide` into the 16-bit tensor `out` (a no-op when out is undefined).
void narrow_into(const Tensor& wide, const Tensor& out);

}  // namespace exadnn::cpu
