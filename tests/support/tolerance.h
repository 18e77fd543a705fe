// Comparison tolerances per dtype: set once here, never loosened test by test.
#pragma once

#include "exadnn/core/dtype.h"

namespace exadnn::testing {

struct Tolerance {
  double rtol;
  double atol;
};

/// Tolerance for comparing a computed result of `dtype` with a reference computed in f64.
constexpr Tolerance tolerance_for(DType dtype) {
  switch (dtype) {
    case DType::f64:
      return {1e-12, 1e-12};
    case DType::f32:
      return {1e-5, 1e-6};
    case DType::f16:
      return {2e-3, 1e-3};  // 11-bit significand: half ulp is 4.9e-4
    case DType::bf16:
      return {1.6e-2, 1e-2};  // 8-bit significand: half ulp is 3.9e-3
    default:
      return {0.0, 0.0};  // integers and bool are exact
  }
}

/// Tolerance of finite-difference gradient checks (always in f64).
inline constexpr Tolerance kGradcheckTolerance{1e-5, 1e-6};
/// Finite-difference step of gradient checks.
inline constexpr double kGradcheckStep = 1e-6;

}  // namespace exadnn::testing
