// Mixed-precision scopes: autocast (16-bit layers, f32 everything else).
#pragma once

#include "exadnn/backend/precision_policy.h"
#include "exadnn/core/dtype.h"

namespace exadnn::precision {

/// `Autocast scope(DType::bf16);` — inside the scope, on this thread, matmul, linear and conv2d
/// with f32 operands run in the scope's dtype (f16 or bf16): the operands are cast (the casts are
/// recorded, so f32 parameters receive f32 gradients) and the result is 16-bit. conv2d stays in
/// f32 where the backend has no 16-bit convolution. Reductions (sum, mean), softmax,
/// log_softmax, batch norm and the losses take 16-bit inputs up to f32. Gradient rules run in
/// the dtypes the forward pass recorded (backward turns autocasting off). Scopes nest;
/// Autocast(DType::f32) turns autocasting off inside. Other threads are unaffected.
using Autocast = AutocastGuard;

/// The dtype of the enclosing Autocast scope, or f32 outside any.
inline DType autocast_dtype() noexcept {
  return exadnn::autocast_dtype();
}

}  // namespace exadnn::precision
