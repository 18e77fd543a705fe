// Tensor factories: filled, ranges, random draws, and wrappers of caller-owned memory.
#include "exadnn/ops/factories.h"

#include <cmath>
#include <cstring>
#include <numbers>

#include "exadnn/core/rng.h"
#include "internal.h"

namespace exadnn {

namespace {

void check_shape(const Shape& shape, const char* op) {
  for (int64_t d : shape) EXADNN_CHECK(d >= 0, op, "negative dimension ", d, " in shape ", shape);
}

// Bytes of a dense tensor; throws if the element or byte count does not fit in 64 bits.
size_t checked_nbytes(const Shape& shape, DType dtype, const char* op) {
  check_shape(shape, op);
  int64_t count = 1;
  for (int64_t d : shape)
    EXADNN_CHECK(!__builtin_mul_overflow(count, d, &count), op, "shape ", shape,
                 " has more elements than a 64-bit count can hold");
  size_t bytes = 0;
  EXADNN_CHECK(!__builtin_mul_overflow(static_cast<size_t>(count), dtype_size(dtype), &bytes), op,
               "shape ", shape, " of ", dtype_name(dtype),
               " needs more bytes than can be addressed");
  return bytes;
}

Tensor finish(Tensor t, const TensorOptions& options) {
  if (options.requires_grad()) t.requires_grad_(true);
  return t;
}

// Computes element i as draw(i) on the host in type Host, then converts to the options.
template <class Host = double, class Draw>
Tensor host_draw(const Shape& shape, const TensorOptions& options, Draw draw) {
  check_shape(shape, "random");
  Tensor host = empty(shape, dtype_v<Host>);
  Host* p = host.data<Host>();
  const int64_t n = host.numel();
#pragma omp parallel for if (n >= 65536)
  for (int64_t i = 0; i < n; ++i) p[i] = draw(i);
  Tensor out = host.to(options.dtype()).to(options.device());
  return finish(out, options);
}

}  // namespace

Tensor empty(const Shape& shape, const TensorOptions& options) {
  const size_t nbytes = checked_nbytes(shape, options.dtype(), "empty");
  auto storage = Storage::allocate(nbytes, options.device(), options.memory());
  return finish(make_view(storage, shape, contiguous_strides(shape), 0, options.dtype()), options);
}

Tensor full(const Shape& shape, double value, const TensorOptions& options) {
  Tensor t = empty(shape, TensorOptions(options).requires_grad(false));
  lookup<FillKernel>(OpId::fill, t.device().kind, t.dtype())(t, value);
  return finish(t, options);
}

Tensor zeros(const Shape& shape, const TensorOptions& options) {
  return full(shape, 0.0, options);
}
Tensor ones(const Shape& shape, const TensorOptions& options) {
  return full(shape, 1.0, options);
}

Tensor empty_like(const Tensor& like) {
  return empty(like.shape(), TensorOptions(like.dtype()).device(like.device()));
}
Tensor zeros_like(const Tensor& like) {
  return zeros(like.shape(), TensorOptions(like.dtype()).device(like.device()));
}
Tensor ones_like(const Tensor& like) {
  return ones(like.shape(), TensorOptions(like.dtype()).device(like.device()));
}

Tensor scalar_tensor(double value, const TensorOptions& options) {
  return full({}, value, options);
}

Tensor arange(double start, double end, double step, const TensorOptions& options) {
  EXADNN_CHECK(step != 0.0, "arange", "step must be non-zero");
  EXADNN_CHECK(std::isfinite(start) && std::isfinite(end) && std::isfinite(step), "arange",
               "start, end and step must be finite");
  const double count = std::ceil((end - start) / step);
  const int64_t n = count > 0 ? static_cast<int64_t>(count) : 0;
  return host_draw({n}, options, [=](int64_t i) { return start + static_cast<double>(i) * step; });
}

Tensor arange(int64_t end, const TensorOptions& options) {
  return arange(0.0, static_cast<double>(end), 1.0, options);
}

Tensor rand(const Shape& shape, const TensorOptions& options, Generator* gen) {
  EXADNN_CHECK(is_floating(options.dtype()), "rand", "needs a floating dtype, got ",
               dtype_name(options.dtype()));
  // Draw exactly as many bits as the target's significand holds, so rounding to the target
  // cannot reach 1.0: values are k * 2^-bits with k < 2^bits.
  const int bits = options.dtype() == DType::f64   ? 53
                   : options.dtype() == DType::f32 ? 24
                   : options.dtype() == DType::f16 ? 11
                                                   : 8;
  const double scale = std::ldexp(1.0, -bits);
  Generator& g = gen ? *gen : default_generator();
  const uint64_t base = g.advance(static_cast<uint64_t>(std::max<int64_t>(shape.numel(), 0)));
  return host_draw(shape, options, [&g, base, bits, scale](int64_t i) {
    return static_cast<double>(g.bits_at(base + i) >> (64 - bits)) * scale;
  });
}

Tensor randn(const Shape& shape, const TensorOptions& options, Generator* gen) {
  Generator& g = gen ? *gen : default_generator();
  // Box-Muller: element pair (2j, 2j+1) comes from uniforms (2j, 2j+1).
  const int64_t n = std::max<int64_t>(shape.numel(), 0);
  const uint64_t base = g.advance(static_cast<uint64_t>(n + (n & 1)));
  return host_draw(shape, options, [&g, base](int64_t i) {
    const uint64_t pair = base + static_cast<uint64_t>(i & ~int64_t{1});
    const double u1 = 1.0 - g.uniform_at(pair);  // (0, 1]: log is finite
    const double u2 = g.uniform_at(pair + 1);
    const double r = std::sqrt(-2.0 * std::log(u1));
    const double angle = 2.0 * std::numbers::pi * u2;
    return (i & 1) ? r * std::sin(angle) : r * std::cos(angle);
  });
}

Tensor randint(int64_t low, int64_t high, const Shape& shape, const TensorOptions& options,
               Generator* gen) {
  EXADNN_CHECK(high > low, "randint", "empty range [", low, ", ", high, ")");
  Generator& g = gen ? *gen : default_generator();
  const uint64_t base = g.advance(static_cast<uint64_t>(std::max<int64_t>(shape.numel(), 0)));
  const uint64_t span = static_cast<uint64_t>(high) - static_cast<uint64_t>(low);
  const TensorOptions opts = TensorOptions(options).dtype(options.dtype_or(DType::i64));
  return host_draw<int64_t>(shape, opts, [&g, base, low, span](int64_t i) {
    // Unsigned arithmetic wraps as intended for ranges wider than INT64_MAX.
    return static_cast<int64_t>(static_cast<uint64_t>(low) + g.bits_at(base + i) % span);
  });
}

Tensor from_blob(void* data, const Shape& shape, DType dtype, const Strides& strides, Device device,
                 std::function<void(void*)> on_release) {
  check_shape(shape, "from_blob");
  EXADNN_CHECK(data != nullptr || shape.numel() == 0, "from_blob", "null data pointer for shape ",
               shape);
  const Strides st = strides.empty() ? contiguous_strides(shape) : strides;
  EXADNN_CHECK(st.size() == shape.size(), "from_blob", "strides ", st, " do not match shape ",
               shape);
  int64_t extent = shape.numel() > 0 ? 1 : 0;  // elements spanned by the view
  for (int64_t i = 0; i < shape.size() && shape.numel() > 0; ++i) {
    EXADNN_CHECK(st[i] >= 0, "from_blob", "negative stride ", st[i]);
    extent += (shape[i] - 1) * st[i];
  }
  const MemoryKind kind = device.is_cpu() ? MemoryKind::host : MemoryKind::device;
  auto storage = Storage::borrow(data, static_cast<size_t>(extent) * dtype_size(dtype), device,
                                 kind, std::move(on_release));
  return make_view(storage, shape, st, 0, dtype);
}

template <class T>
Tensor from_vector(const std::vector<T>& values, const Shape& shape, const TensorOptions& options) {
  const Shape s = shape.empty() ? Shape{static_cast<int64_t>(values.size())} : shape;
  EXADNN_CHECK(s.numel() == static_cast<int64_t>(values.size()), "from_vector", values.size(),
               " values do not fill shape ", s);
  Tensor host = empty(s, dtype_v<T>);
  if (!values.empty()) std::memcpy(host.data_ptr(), values.data(), values.size() * sizeof(T));
  Tensor out = host.to(options.dtype_or(dtype_v<T>)).to(options.device());
  return finish(out, options);
}

template <class T>
std::vector<T> to_vector(const Tensor& t) {
  Tensor host = t.detach().to(Device::cpu()).to(dtype_v<T>).contiguous();
  std::vector<T> out(static_cast<size_t>(host.numel()));
  if (!out.empty()) std::memcpy(out.data(), host.data_ptr(), out.size() * sizeof(T));
  return out;
}

#define EXADNN_INSTANTIATE(T)                                                                \
  template Tensor from_vector<T>(const std::vector<T>&, const Shape&, const TensorOptions&); \
  template std::vector<T> to_vector<T>(const Tensor&);
EXADNN_INSTANTIATE(float)
EXADNN_INSTANTIATE(double)
EXADNN_INSTANTIATE(int32_t)
EXADNN_INSTANTIATE(int64_t)
EXADNN_INSTANTIATE(uint8_t)
#undef EXADNN_INSTANTIATE

}  // namespace exadnn
