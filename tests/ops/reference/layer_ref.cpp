// The naive reference loops of layer_ref.h, built with the build type's flags.
#include "layer_ref.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

namespace exadnn::layerref {

namespace {

/// Calls f(out_index, x_index, w_index) for every multiply-add of the convolution (x_index -1 for
/// padding, skipped).
template <class F>
void conv_visit(const ConvProblem& c, F f) {
  const Shape o = conv_out_shape(c);
  const int64_t N = c.x[0], C = c.x[1], H = c.x[2], W = c.x[3];
  const int64_t O = c.w[0], CG = c.w[1], KH = c.w[2], KW = c.w[3], G = c.p.groups;
  const int64_t OG = O / G;
  for (int64_t n = 0; n < N; ++n)
    for (int64_t oc = 0; oc < O; ++oc)
      for (int64_t oy = 0; oy < o[2]; ++oy)
        for (int64_t ox = 0; ox < o[3]; ++ox) {
          const int64_t out = ((n * O + oc) * o[2] + oy) * o[3] + ox;
          const int64_t grp = oc / OG;
          for (int64_t ci = 0; ci < CG; ++ci)
            for (int64_t i = 0; i < KH; ++i)
              for (int64_t j = 0; j < KW; ++j) {
                const int64_t iy = oy * c.p.stride.h - c.p.padding.h + i * c.p.dilation.h;
                const int64_t ix = ox * c.p.stride.w - c.p.padding.w + j * c.p.dilation.w;
                if (iy < 0 || iy >= H || ix < 0 || ix >= W) continue;
                const int64_t cin = grp * CG + ci;
                f(out, ((n * C + cin) * H + iy) * W + ix, ((oc * CG + ci) * KH + i) * KW + j);
              }
        }
}

}  // namespace

optest::Ref conv_forward(const ConvProblem& c, const Values& x, const Values& w, const Values& b) {
  optest::Ref r{conv_out_shape(c), {}};
  r.values.assign(static_cast<size_t>(r.shape.numel()), 0.0);
  const int64_t plane = r.shape[2] * r.shape[3];
  if (c.bias)
    for (int64_t i = 0; i < r.shape.numel(); ++i) r.values[i] = b[(i / plane) % r.shape[1]];
  conv_visit(c, [&](int64_t o, int64_t xi, int64_t wi) { r.values[o] += x[xi] * w[wi]; });
  return r;
}

ConvGrads conv_backward(const ConvProblem& c, const Values& x, const Values& w, const Values& g) {
  ConvGrads r{Values(x.size(), 0.0), Values(w.size(), 0.0), Values(c.w[0], 0.0)};
  conv_visit(c, [&](int64_t o, int64_t xi, int64_t wi) {
    r.x[xi] += g[o] * w[wi];
    r.w[wi] += g[o] * x[xi];
  });
  const Shape os = conv_out_shape(c);
  const int64_t plane = os[2] * os[3];
  for (int64_t i = 0; i < os.numel(); ++i) r.b[(i / plane) % os[1]] += g[i];
  return r;
}

namespace {

/// For every output element: the input elements of its window and its divisor.
template <class F>
void pool_visit(const PoolProblem& p, F f) {
  const Shape o = pool_out_shape(p);
  const int64_t H = p.x[2], W = p.x[3];
  for (int64_t plane = 0; plane < p.x[0] * p.x[1]; ++plane)
    for (int64_t oy = 0; oy < o[2]; ++oy)
      for (int64_t ox = 0; ox < o[3]; ++ox) {
        int64_t y0, y1, x0, x1;
        if (p.kind == Pool::adaptive) {
          y0 = oy * H / o[2];
          y1 = ((oy + 1) * H + o[2] - 1) / o[2];
          x0 = ox * W / o[3];
          x1 = ((ox + 1) * W + o[3] - 1) / o[3];
        } else {
          y0 = oy * p.stride.h - p.padding.h;
          y1 = y0 + p.kernel.h;
          x0 = ox * p.stride.w - p.padding.w;
          x1 = x0 + p.kernel.w;
        }
        std::vector<int64_t> window;
        for (int64_t y = std::max<int64_t>(y0, 0); y < std::min(y1, H); ++y)
          for (int64_t x = std::max<int64_t>(x0, 0); x < std::min(x1, W); ++x)
            window.push_back(plane * H * W + y * W + x);
        const double divisor = p.kind == Pool::avg_include
                                   ? static_cast<double>(p.kernel.h * p.kernel.w)
                                   : static_cast<double>(window.size());
        f((plane * o[2] + oy) * o[3] + ox, window, divisor);
      }
}

}  // namespace

optest::Ref pool_forward(const PoolProblem& p, const Values& x) {
  optest::Ref r{pool_out_shape(p), {}};
  r.values.assign(static_cast<size_t>(r.shape.numel()), 0.0);
  pool_visit(p, [&](int64_t o, const std::vector<int64_t>& win, double div) {
    if (p.kind == Pool::max) {
      double m = -std::numeric_limits<double>::infinity();
      for (int64_t i : win) m = std::max(m, x[i]);
      r.values[o] = m;
    } else {
      double s = 0.0;
      for (int64_t i : win) s += x[i];
      r.values[o] = s / div;
    }
  });
  return r;
}

Values pool_backward(const PoolProblem& p, const Values& x, const Values& g) {
  Values gx(x.size(), 0.0);
  pool_visit(p, [&](int64_t o, const std::vector<int64_t>& win, double div) {
    if (p.kind == Pool::max) {
      int64_t best = win[0];
      for (int64_t i : win)
        if (x[i] > x[best]) best = i;
      gx[best] += g[o];
    } else {
      for (int64_t i : win) gx[i] += g[o] / div;
    }
  });
  return gx;
}

void channel_stats(const Values& x, int64_t n, int64_t c, int64_t s, Values& mean, Values& var) {
  mean.assign(c, 0.0);
  var.assign(c, 0.0);
  for (int64_t i = 0; i < n; ++i)
    for (int64_t ch = 0; ch < c; ++ch)
      for (int64_t k = 0; k < s; ++k) mean[ch] += x[(i * c + ch) * s + k];
  for (double& m : mean) m /= static_cast<double>(n * s);
  for (int64_t i = 0; i < n; ++i)
    for (int64_t ch = 0; ch < c; ++ch)
      for (int64_t k = 0; k < s; ++k) {
        const double d = x[(i * c + ch) * s + k] - mean[ch];
        var[ch] += d * d;
      }
  for (double& v : var) v /= static_cast<double>(n * s);
}

Values batch_norm_forward(const Values& x, int64_t n, int64_t c, int64_t s, const Values& mean,
                          const Values& var, const Values& w, const Values& b, double eps) {
  Values y(x.size());
  for (int64_t i = 0; i < n; ++i)
    for (int64_t ch = 0; ch < c; ++ch)
      for (int64_t k = 0; k < s; ++k) {
        const int64_t at = (i * c + ch) * s + k;
        y[at] = (x[at] - mean[ch]) / std::sqrt(var[ch] + eps) * (w.empty() ? 1.0 : w[ch]) +
                (b.empty() ? 0.0 : b[ch]);
      }
  return y;
}

Values softmax(const Values& x, const Shape& shape, int64_t axis, bool log) {
  int64_t outer = 1, inner = 1;
  for (int64_t d = 0; d < axis; ++d) outer *= shape[d];
  for (int64_t d = axis + 1; d < shape.size(); ++d) inner *= shape[d];
  const int64_t n = shape[axis];
  Values y(x.size());
  for (int64_t o = 0; o < outer; ++o)
    for (int64_t i = 0; i < inner; ++i) {
      auto at = [&](int64_t k) { return (o * n + k) * inner + i; };
      double m = -std::numeric_limits<double>::infinity();
      for (int64_t k = 0; k < n; ++k) m = std::max(m, x[at(k)]);
      double s = 0.0;
      for (int64_t k = 0; k < n; ++k) s += std::exp(x[at(k)] - m);
      for (int64_t k = 0; k < n; ++k)
        y[at(k)] = log ? x[at(k)] - m - std::log(s) : std::exp(x[at(k)] - m) / s;
    }
  return y;
}

}  // namespace exadnn::layerref
