// How ops apply this thread's autocast scope (precision::Autocast, exadnn/backend/
// precision_policy.h, which lists the ops of each kind) to their inputs. Internal to libexadnn:
// the ops and the losses (src/nn/loss.cpp) call these first thing.
#pragma once

#include "exadnn/core/tensor.h"

namespace exadnn {

/// For the ops autocast runs in 16 bits (matmul, linear, conv2d): inside an autocast scope, an
/// f32, f16 or bf16 input cast (recorded) to the scope's dtype; t itself otherwise.
Tensor autocast_to_16bit(const Tensor& t);
/// For the ops autocast keeps in f32 (reductions, softmax, normalisation, losses): inside an
/// autocast scope, an f16 or bf16 input cast (recorded) to f32; t itself otherwise.
Tensor autocast_to_f32(const Tensor& t);

}  // namespace exadnn
