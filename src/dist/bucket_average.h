// The arithmetic of the shared-memory gradient reduction: the average of P equal-length arrays,
// written back into every one of them (internal to dist/).
#pragma once

#include <cstdint>

#include "exadnn/core/dtype.h"

namespace exadnn::dist::detail {

/// For i in [begin, end): x = scale * (arrays[0][i] + ... + arrays[count-1][i]), summed in rank
/// order in f32 (f64 for f64 arrays) and rounded once to `dtype` (f32, f64, f16 or bf16); then
/// arrays[q][i] = x for every q.
void average_into_all(DType dtype, void* const* arrays, int count, int64_t begin, int64_t end,
                      double scale);

}  // namespace exadnn::dist::detail
