// Measuring how accurate each matmul precision is (docs/precision.md's table, its tests and
// bench/precision_bench.cpp all use this one definition).
#pragma once

#include <cstdint>

#include "exadnn/backend/precision_policy.h"

namespace exadnn::precision {

/// Relative Frobenius error ‖C − C_ref‖_F / ‖C_ref‖_F of an n×n·n×n f32 matmul computed at
/// `precision`, with A and B uniform in [-1, 1) (from `seed`), against the f64 product of the
/// same f32 inputs.
double matmul_relative_error(int64_t n, MatmulPrecision precision, uint64_t seed = 1);

}  // namespace exadnn::precision
