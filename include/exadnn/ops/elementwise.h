// Elementwise math with NumPy broadcasting; all differentiable where the math is.
#pragma once

#include "exadnn/core/tensor.h"

namespace exadnn {

// Binary ops broadcast their operands (NumPy rules) and promote dtypes (promote_types).
Tensor add(const Tensor& a, const Tensor& b);
/// relu(a + b) as one node (a residual block's join): one pass forward, and the gradient masked
/// by the output, so the sum is never stored. Float dtypes; other dtypes, and devices without
/// the fused kernel, run add then relu (the same values).
Tensor add_relu(const Tensor& a, const Tensor& b);
Tensor sub(const Tensor& a, const Tensor& b);
Tensor mul(const Tensor& a, const Tensor& b);
Tensor div(const Tensor& a, const Tensor& b);
/// a ** b, elementwise.
Tensor pow(const Tensor& a, const Tensor& b);
/// Elementwise larger of a and b (gradient goes to a on ties).
Tensor maximum(const Tensor& a, const Tensor& b);
/// Elementwise smaller of a and b (gradient goes to a on ties).
Tensor minimum(const Tensor& a, const Tensor& b);

Tensor neg(const Tensor& x);
Tensor abs(const Tensor& x);
Tensor exp(const Tensor& x);
Tensor log(const Tensor& x);
Tensor sqrt(const Tensor& x);
Tensor tanh(const Tensor& x);
/// 1 / (1 + exp(-x))
Tensor sigmoid(const Tensor& x);
/// max(x, 0); gradient 0 at 0.
Tensor relu(const Tensor& x);
/// -1, 0 or 1 (not differentiable: gradient zero).
Tensor sign(const Tensor& x);
/// min(max(x, lo), hi); gradient 1 inside [lo, hi], 0 outside.
Tensor clamp(const Tensor& x, double lo, double hi);
/// x ** exponent with a scalar exponent.
Tensor pow(const Tensor& x, double exponent);

/// A 0-d tensor holding `value`, with a dtype that keeps `like`'s category (float stays float).
Tensor scalar_like(double value, const Tensor& like);

}  // namespace exadnn
