#include "exadnn/nn/init.h"

#include <algorithm>
#include <cmath>

#include "exadnn/autograd/grad_mode.h"
#include "exadnn/ops/factories.h"
#include "exadnn/ops/inplace.h"
#include "exadnn/ops/operators.h"

namespace exadnn::nn::init {

Fans fans(const Tensor& w) {
  EXADNN_CHECK(w.dim() >= 2, "init", "fan in/out need a weight with at least 2 dims, got shape ",
               w.shape());
  int64_t receptive = 1;
  for (int64_t i = 2; i < w.dim(); ++i) receptive *= w.size(i);
  return {w.size(1) * receptive, w.size(0) * receptive};
}

double gain(const std::string& nonlinearity, double slope) {
  if (nonlinearity == "linear" || nonlinearity == "sigmoid" || nonlinearity == "conv2d") return 1.0;
  if (nonlinearity == "tanh") return 5.0 / 3.0;
  if (nonlinearity == "relu") return std::sqrt(2.0);
  if (nonlinearity == "leaky_relu") return std::sqrt(2.0 / (1.0 + slope * slope));
  throw Error("init::gain", "unknown nonlinearity '" + nonlinearity +
                                "' (expected linear, sigmoid, tanh, relu, leaky_relu)");
}

void constant_(const Tensor& t, double value) {
  NoGradGuard no_grad;
  fill_(t, value);
}
void zeros_(const Tensor& t) {
  constant_(t, 0.0);
}
void ones_(const Tensor& t) {
  constant_(t, 1.0);
}

namespace {

// Writes draw(n) (f64 values, [n]) into t, kPiece elements at a time in t's element order. The
// values are those of one draw over the whole tensor: the generators are counter-based (element i
// of a draw is computed from the counter base + i, randn's pairs from base + 2j), so consecutive
// even-sized pieces continue one stream. What it saves: a 2048 x 2048 weight drew three f64
// temporaries of 33.5 MB at once, which the caching allocator then kept for the whole run.
template <class Draw>
void fill_in_pieces(const Tensor& t, Draw draw) {
  NoGradGuard no_grad;
  constexpr int64_t kPiece = int64_t{1} << 16;  // even, 512 KiB of f64
  const int64_t n = t.numel();
  if (!t.is_contiguous() || n <= kPiece) {
    copy_(t, draw(t.shape()));
    return;
  }
  const Tensor flat = t.view({n});
  for (int64_t start = 0; start < n; start += kPiece) {
    const int64_t length = std::min(kPiece, n - start);
    copy_(flat.narrow(0, start, length), draw(Shape{length}));
  }
}

}  // namespace

void uniform_(const Tensor& t, double a, double b, Generator* gen) {
  fill_in_pieces(t, [&](const Shape& shape) {
    return rand(shape, TensorOptions(DType::f64), gen) * (b - a) + a;
  });
}

void normal_(const Tensor& t, double mean, double std, Generator* gen) {
  fill_in_pieces(t, [&](const Shape& shape) {
    return randn(shape, TensorOptions(DType::f64), gen) * std + mean;
  });
}

void xavier_uniform_(const Tensor& t, double g, Generator* gen) {
  const Fans f = fans(t);
  const double bound = g * std::sqrt(6.0 / static_cast<double>(f.in + f.out));
  uniform_(t, -bound, bound, gen);
}

void xavier_normal_(const Tensor& t, double g, Generator* gen) {
  const Fans f = fans(t);
  normal_(t, 0.0, g * std::sqrt(2.0 / static_cast<double>(f.in + f.out)), gen);
}

void kaiming_uniform_(const Tensor& t, double a, const std::string& nonlinearity, bool fan_in_mode,
                      Generator* gen) {
  const Fans f = fans(t);
  const double fan = static_cast<double>(fan_in_mode ? f.in : f.out);
  const double bound = gain(nonlinearity, a) * std::sqrt(3.0 / fan);
  uniform_(t, -bound, bound, gen);
}

void kaiming_normal_(const Tensor& t, double a, const std::string& nonlinearity, bool fan_in_mode,
                     Generator* gen) {
  const Fans f = fans(t);
  const double fan = static_cast<double>(fan_in_mode ? f.in : f.out);
  normal_(t, 0.0, gain(nonlinearity, a) / std::sqrt(fan), gen);
}

}  // namespace exadnn::nn::init
