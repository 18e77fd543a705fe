// Naive reference loops (over doubles) for the layer-op tests: convolution, pooling, batch norm
// and softmax, forward and backward, written straight from the definitions. The loops live in
// reference/layer_ref.cpp, a library built with the build type's flags: the test programs'
// own files compile at -O0 (cmake/ExadnnTestPrograms.cmake), where these loops ran ~10x slower.
#pragma once

#include "op_test_util.h"

namespace exadnn::layerref {

using optest::Values;

/// n multiples of 1/16 in [-1, 1]: products and sums of a few thousand of them are exact in f32,
/// so any summation order gives the same f32 result.
inline Values quantized(int64_t n, uint64_t seed) {
  Values v = optest::integers(n, seed, -16, 16);
  for (double& x : v) x /= 16.0;
  return v;
}

// ---- convolution ------------------------------------------------------------------------------

struct ConvProblem {
  Shape x, w;
  bool bias = true;
  Conv2dParams p;
};

inline int64_t conv_out(int64_t in, int64_t k, int64_t s, int64_t pad, int64_t d) {
  return (in + 2 * pad - d * (k - 1) - 1) / s + 1;
}

inline Shape conv_out_shape(const ConvProblem& c) {
  return {c.x[0], c.w[0], conv_out(c.x[2], c.w[2], c.p.stride.h, c.p.padding.h, c.p.dilation.h),
          conv_out(c.x[3], c.w[3], c.p.stride.w, c.p.padding.w, c.p.dilation.w)};
}

/// Forward of problem c (x, w and b laid out as c's shapes, b ignored without bias), in f64.
optest::Ref conv_forward(const ConvProblem& c, const Values& x, const Values& w, const Values& b);

struct ConvGrads {
  Values x, w, b;
};

/// The gradients of x, w and the bias for the output's gradient g.
ConvGrads conv_backward(const ConvProblem& c, const Values& x, const Values& w, const Values& g);

// ---- pooling ----------------------------------------------------------------------------------

enum class Pool { max, avg_include, avg_exclude, adaptive };

struct PoolProblem {
  Shape x;  // [N, C, H, W]
  Pool kind = Pool::max;
  Size2 kernel = 2, stride = 2, padding = 0;  // adaptive: kernel is the output size
};

inline Shape pool_out_shape(const PoolProblem& p) {
  if (p.kind == Pool::adaptive) return {p.x[0], p.x[1], p.kernel.h, p.kernel.w};
  return {p.x[0], p.x[1], (p.x[2] + 2 * p.padding.h - p.kernel.h) / p.stride.h + 1,
          (p.x[3] + 2 * p.padding.w - p.kernel.w) / p.stride.w + 1};
}

/// Forward of problem p; max pooling's gradient goes to the first maximum of a window.
optest::Ref pool_forward(const PoolProblem& p, const Values& x);
Values pool_backward(const PoolProblem& p, const Values& x, const Values& g);

// ---- batch norm -------------------------------------------------------------------------------

/// Per-channel mean and biased variance of x [N, C, S...] (S = product of trailing dims).
void channel_stats(const Values& x, int64_t n, int64_t c, int64_t s, Values& mean, Values& var);

/// (x - mean) / sqrt(var + eps) * w + b per channel (w, b empty: 1 and 0).
Values batch_norm_forward(const Values& x, int64_t n, int64_t c, int64_t s, const Values& mean,
                          const Values& var, const Values& w, const Values& b, double eps);

// ---- softmax ----------------------------------------------------------------------------------

/// Softmax (or log-softmax) of x of `shape` over `axis`.
Values softmax(const Values& x, const Shape& shape, int64_t axis, bool log);

}  // namespace exadnn::layerref
