// Batch image transforms: per-channel affine maps, random crops with zero padding, random flips.
// Loops work on raw rows (memcpy / typed swaps) so any dtype goes through without conversion.
#include "exadnn/data/transforms.h"

#include <algorithm>
#include <cstring>
#include <type_traits>

#include "backend/cpu/vector_clones.h"
#include "data/seed.h"
#include "exadnn/ops/factories.h"

namespace exadnn::data {
namespace {

// out[i] = float(in[i] * a + b), the product and the sum in f64 as two roundings (no FMA: the
// value a scalar loop gives), vectorised: a batch of u8 images becomes f32 pixels in one pass.
// (A 256-entry table gathered element by element took ~30 µs for a [128, 1, 28, 28] batch, on the
// step's critical path when no core is free for the loader's worker.)
#pragma GCC push_options
#pragma GCC optimize("fp-contract=off")
EXADNN_VECTOR_CLONES void affine_u8_to_f32(const uint8_t* in, float* out, int64_t n, double a,
                                           double b) {
  for (int64_t i = 0; i < n; ++i) out[i] = static_cast<float>(static_cast<double>(in[i]) * a + b);
}
#pragma GCC pop_options

template <class T>
double to_double(T v) {
  if constexpr (std::is_same_v<T, Half> || std::is_same_v<T, BFloat16>)
    return static_cast<double>(static_cast<float>(v));
  else
    return static_cast<double>(v);
}

// y[n, c, i] = x[n, c, i] * a[c] + b[c] for x [B, C, ...] of any real dtype, computed in f64
// and rounded to Out (u8 input to f32 by affine_u8_to_f32, to f64 through a 256-entry table per
// channel).
template <class Out>
Tensor affine_per_channel(const Tensor& x_in, const std::vector<double>& a,
                          const std::vector<double>& b, DType out_dtype) {
  const Tensor x = x_in.detach().to(Device::cpu()).contiguous();
  const int64_t batch = x.size(0), channels = x.size(1);
  const int64_t inner = batch * channels > 0 ? x.numel() / (batch * channels) : 0;
  Tensor y = empty(x.shape(), out_dtype);
  Out* out = y.template data<Out>();
  const auto coef = [&](int64_t c) { return a.size() == 1 ? size_t{0} : static_cast<size_t>(c); };
  if (x.dtype() == DType::u8) {
    if constexpr (std::is_same_v<Out, float>) {
      const uint8_t* in = x.data<uint8_t>();
      for (int64_t n = 0; n < batch; ++n)
        for (int64_t c = 0; c < channels; ++c) {
          const int64_t base = (n * channels + c) * inner;
          affine_u8_to_f32(in + base, out + base, inner, a[coef(c)], b[coef(c)]);
        }
      return y;
    }
    std::vector<Out> table(256 * a.size());
    for (size_t k = 0; k < a.size(); ++k)
      for (int v = 0; v < 256; ++v) table[k * 256 + v] = static_cast<Out>(v * a[k] + b[k]);
    const uint8_t* in = x.data<uint8_t>();
    for (int64_t n = 0; n < batch; ++n)
      for (int64_t c = 0; c < channels; ++c) {
        const Out* t = table.data() + coef(c) * 256;
        const int64_t base = (n * channels + c) * inner;
        for (int64_t i = 0; i < inner; ++i) out[base + i] = t[in[base + i]];
      }
    return y;
  }
  visit_dtype(x.dtype(), [&](auto tag) {
    using In = decltype(tag);
    const In* in = static_cast<const In*>(x.data_ptr());
    for (int64_t n = 0; n < batch; ++n)
      for (int64_t c = 0; c < channels; ++c) {
        const double ac = a[coef(c)], bc = b[coef(c)];
        const int64_t base = (n * channels + c) * inner;
        for (int64_t i = 0; i < inner; ++i)
          out[base + i] = static_cast<Out>(to_double(in[base + i]) * ac + bc);
      }
  });
  return y;
}

Tensor affine(const Tensor& x, const std::vector<double>& a, const std::vector<double>& b,
              const char* where) {
  EXADNN_CHECK(x.defined() && x.dim() >= 2, where, "expects a batch [B, C, ...], got ",
               x.defined() ? detail::cat(x.shape()) : std::string("an undefined tensor"));
  EXADNN_CHECK(x.dtype() != DType::boolean, where, "cannot scale a bool tensor");
  EXADNN_CHECK(a.size() == 1 || static_cast<int64_t>(a.size()) == x.size(1), where, "has ",
               a.size(), " channel values but the batch ", x.shape(), " has ", x.size(1),
               " channels");
  if (x.dtype() == DType::f64) return affine_per_channel<double>(x, a, b, DType::f64);
  return affine_per_channel<float>(x, a, b, DType::f32);
}

Tensor packed_host(const Tensor& x) {
  return x.detach().to(Device::cpu()).contiguous();
}

// Reverses `count` elements of `bytes` bytes each from src into dst.
void reverse_row(const unsigned char* src, unsigned char* dst, int64_t count, size_t bytes) {
  const auto rev = [&](auto tag) {
    using T = decltype(tag);
    const T* s = reinterpret_cast<const T*>(src);
    T* d = reinterpret_cast<T*>(dst);
    for (int64_t i = 0; i < count; ++i) d[i] = s[count - 1 - i];
  };
  switch (bytes) {
    case 1:
      rev(uint8_t{});
      break;
    case 2:
      rev(uint16_t{});
      break;
    case 4:
      rev(uint32_t{});
      break;
    default:
      rev(uint64_t{});
      break;
  }
}

}  // namespace

Compose::Compose(std::vector<std::shared_ptr<const Transform>> transforms)
    : transforms_(std::move(transforms)) {
  for (const auto& t : transforms_) EXADNN_CHECK(t != nullptr, "Compose", "null transform");
}

Tensor Compose::apply(const Tensor& x, Generator& gen) const {
  Tensor y = x;
  for (const auto& t : transforms_) y = t->apply(y, gen);
  return y;
}

bool Compose::pointwise() const {
  for (const auto& t : transforms_)
    if (!t->pointwise()) return false;
  return true;
}

Normalize::Normalize(std::vector<double> mean, std::vector<double> std, double scale)
    : mean_(std::move(mean)), std_(std::move(std)), scale_(scale) {
  EXADNN_CHECK(!mean_.empty() && mean_.size() == std_.size(), "Normalize", "needs as many std (",
               std_.size(), ") as mean (", mean_.size(), ") values, at least one");
  for (double s : std_) EXADNN_CHECK(s > 0, "Normalize", "std values must be > 0, got ", s);
}

Tensor Normalize::apply(const Tensor& x, Generator&) const {
  std::vector<double> a(mean_.size()), b(mean_.size());
  for (size_t c = 0; c < mean_.size(); ++c) {
    a[c] = scale_ / std_[c];
    b[c] = -mean_[c] / std_[c];
  }
  return affine(x, a, b, "Normalize");
}

Tensor ToFloat::apply(const Tensor& x, Generator&) const {
  EXADNN_CHECK(x.defined() && x.dim() >= 1, "ToFloat", "expects a batch [B, ...]");
  EXADNN_CHECK(x.dtype() != DType::boolean, "ToFloat", "cannot scale a bool tensor");
  // Viewed as [1, 1, numel]: one channel, so one scale for every element, in one flat loop.
  const Tensor flat = x.detach().to(Device::cpu()).contiguous().reshape({1, 1, x.numel()});
  return affine_per_channel<float>(flat, {scale_}, {0.0}, DType::f32).reshape(x.shape());
}

RandomCrop::RandomCrop(int64_t height, int64_t width, int64_t padding)
    : height_(height), width_(width), padding_(padding) {
  EXADNN_CHECK(height > 0 && width > 0 && padding >= 0, "RandomCrop",
               "needs a positive window and padding >= 0, got ", height, "x", width, " padding ",
               padding);
}

Tensor RandomCrop::apply(const Tensor& x_in, Generator& gen) const {
  EXADNN_CHECK(x_in.defined() && x_in.dim() == 4, "RandomCrop", "expects images [B, C, H, W], got ",
               x_in.defined() ? detail::cat(x_in.shape()) : std::string("an undefined tensor"));
  const Tensor x = packed_host(x_in);
  const int64_t batch = x.size(0), channels = x.size(1), h = x.size(2), w = x.size(3);
  const int64_t p = padding_, oh = height_, ow = width_;
  EXADNN_CHECK(h + 2 * p >= oh && w + 2 * p >= ow, "RandomCrop", "a ", oh, "x", ow,
               " window does not fit ", h, "x", w, " images padded by ", p);
  Tensor y = empty({batch, channels, oh, ow}, x.dtype());
  const size_t es = x.element_size();
  const auto* src = static_cast<const unsigned char*>(x.data_ptr());
  auto* dst = static_cast<unsigned char*>(y.data_ptr());
  const uint64_t base = gen.advance(2 * static_cast<uint64_t>(batch));
  for (int64_t n = 0; n < batch; ++n) {
    // Window origin in padded coordinates.
    const auto dy =
        static_cast<int64_t>(internal::bounded(gen.bits_at(base + 2 * static_cast<uint64_t>(n)),
                                               static_cast<uint64_t>(h + 2 * p - oh + 1)));
    const auto dx =
        static_cast<int64_t>(internal::bounded(gen.bits_at(base + 2 * static_cast<uint64_t>(n) + 1),
                                               static_cast<uint64_t>(w + 2 * p - ow + 1)));
    const int64_t j0 = std::clamp<int64_t>(p - dx, 0, ow);       // first column inside the image
    const int64_t j1 = std::clamp<int64_t>(w + p - dx, j0, ow);  // one past the last
    for (int64_t c = 0; c < channels; ++c) {
      const unsigned char* plane = src + static_cast<size_t>((n * channels + c) * h * w) * es;
      unsigned char* out = dst + static_cast<size_t>((n * channels + c) * oh * ow) * es;
      for (int64_t i = 0; i < oh; ++i, out += ow * es) {
        const int64_t sy = dy + i - p;
        if (sy < 0 || sy >= h) {
          std::memset(out, 0, static_cast<size_t>(ow) * es);
          continue;
        }
        std::memset(out, 0, static_cast<size_t>(j0) * es);
        std::memcpy(out + j0 * es, plane + static_cast<size_t>(sy * w + j0 + dx - p) * es,
                    static_cast<size_t>(j1 - j0) * es);
        std::memset(out + j1 * es, 0, static_cast<size_t>(ow - j1) * es);
      }
    }
  }
  return y;
}

RandomHorizontalFlip::RandomHorizontalFlip(double p) : p_(p) {
  EXADNN_CHECK(p >= 0.0 && p <= 1.0, "RandomHorizontalFlip", "p must be in [0, 1], got ", p);
}

Tensor RandomHorizontalFlip::apply(const Tensor& x_in, Generator& gen) const {
  EXADNN_CHECK(x_in.defined() && x_in.dim() >= 2, "RandomHorizontalFlip",
               "expects images [B, ..., W], got ",
               x_in.defined() ? detail::cat(x_in.shape()) : std::string("an undefined tensor"));
  const Tensor x = packed_host(x_in);
  const int64_t batch = x.size(0), w = x.size(-1);
  const int64_t per_example = batch > 0 ? x.numel() / batch : 0;
  const int64_t rows = w > 0 ? per_example / w : 0;
  Tensor y = empty(x.shape(), x.dtype());
  const size_t es = x.element_size();
  const auto* src = static_cast<const unsigned char*>(x.data_ptr());
  auto* dst = static_cast<unsigned char*>(y.data_ptr());
  const uint64_t base = gen.advance(static_cast<uint64_t>(batch));
  for (int64_t n = 0; n < batch; ++n) {
    const size_t offset = static_cast<size_t>(n * per_example) * es;
    if (gen.uniform_at(base + static_cast<uint64_t>(n)) < p_) {
      for (int64_t r = 0; r < rows; ++r)
        reverse_row(src + offset + static_cast<size_t>(r * w) * es,
                    dst + offset + static_cast<size_t>(r * w) * es, w, es);
    } else {
      std::memcpy(dst + offset, src + offset, static_cast<size_t>(per_example) * es);
    }
  }
  return y;
}

}  // namespace exadnn::data
