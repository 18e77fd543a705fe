// Helpers of the op tests: test data, f64 leaves, and naive reference loops over doubles.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <functional>
#include <limits>
#include <numeric>
#include <string>
#include <vector>

#include "testing.h"

namespace exadnn::optest {

using Values = std::vector<double>;

// ---- test data ------------------------------------------------------------------------------

/// n values uniform in [lo, hi), deterministic in seed.
inline Values uniform(int64_t n, uint64_t seed, double lo = -1.0, double hi = 1.0) {
  Generator gen(seed);
  Values v(static_cast<size_t>(n));
  for (auto& x : v) x = lo + (hi - lo) * gen.uniform();
  return v;
}

/// n integers uniform in [lo, hi], as doubles.
inline Values integers(int64_t n, uint64_t seed, int64_t lo, int64_t hi) {
  Generator gen(seed);
  Values v(static_cast<size_t>(n));
  for (auto& x : v)
    x = static_cast<double>(lo +
                            static_cast<int64_t>(gen.uniform() * static_cast<double>(hi - lo + 1)));
  return v;
}

/// n distinct values on the grid offset + 0.1 * k, shuffled: every two differ by >= 0.1, and no
/// value comes closer than min(offset, 0.1 - offset) to a multiple of 0.1 (so with offset 0.03,
/// none is within 0.03 of 0 or +-0.5: kink points of relu, abs, clamp stay far away).
inline Values distinct(int64_t n, uint64_t seed, double offset = 0.03) {
  std::vector<int64_t> k(static_cast<size_t>(n));
  std::iota(k.begin(), k.end(), -n / 2);
  Generator gen(seed);
  for (int64_t i = n - 1; i > 0; --i) {  // Fisher-Yates with the library's counter-based source
    const int64_t j = static_cast<int64_t>(gen.uniform() * static_cast<double>(i + 1));
    std::swap(k[i], k[j]);
  }
  Values v(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) v[i] = 0.1 * static_cast<double>(k[i]) + offset;
  return v;
}

/// A CPU tensor of `dtype` holding `v` (converted, so rounded for 16-bit floats). An empty shape
/// means 0-d (from_vector itself reads an empty shape as 1-D).
inline Tensor make(const Values& v, const Shape& shape, DType dtype) {
  if (shape.empty()) return from_vector<double>(v, Shape{1}, TensorOptions(dtype)).reshape(Shape{});
  return from_vector<double>(v, shape, TensorOptions(dtype));
}

/// An f64 leaf requiring grad that holds `v` row-major over `shape`; when `strided` its memory is
/// not contiguous (testing::strided_leaf's layout).
inline Tensor leaf(const Values& v, const Shape& shape, bool strided = false) {
  Tensor t = strided ? testing::strided_leaf(shape) : testing::random_leaf(shape);
  {
    NoGradGuard no_grad;
    copy_(t, make(v, shape, DType::f64));
  }
  return t;
}

// ---- index arithmetic -----------------------------------------------------------------------

inline std::vector<int64_t> unravel(int64_t linear, const Shape& shape) {
  std::vector<int64_t> idx(static_cast<size_t>(shape.size()));
  for (int64_t d = shape.size() - 1; d >= 0; --d) {
    idx[d] = shape[d] == 0 ? 0 : linear % shape[d];
    linear = shape[d] == 0 ? 0 : linear / shape[d];
  }
  return idx;
}

inline int64_t ravel(const std::vector<int64_t>& idx, const Shape& shape) {
  int64_t linear = 0;
  for (int64_t d = 0; d < shape.size(); ++d) linear = linear * shape[d] + idx[d];
  return linear;
}

/// NumPy broadcast of two shapes (ADD_FAILURE if they do not broadcast).
inline Shape broadcast(const Shape& a, const Shape& b) {
  const int64_t n = std::max(a.size(), b.size());
  Shape out;
  for (int64_t i = 0; i < n; ++i) {
    const int64_t ai = i - (n - a.size()), bi = i - (n - b.size());
    const int64_t da = ai >= 0 ? a[ai] : 1, db = bi >= 0 ? b[bi] : 1;
    if (da != db && da != 1 && db != 1) ADD_FAILURE() << "reference: shapes do not broadcast";
    out.push_back(da == 1 ? db : da);
  }
  return out;
}

/// Linear index into a tensor of shape `src` read by output index `out_idx` under broadcasting.
inline int64_t source_index(const std::vector<int64_t>& out_idx, const Shape& src) {
  const int64_t lead = static_cast<int64_t>(out_idx.size()) - src.size();
  int64_t linear = 0;
  for (int64_t d = 0; d < src.size(); ++d)
    linear = linear * src[d] + (src[d] == 1 ? 0 : out_idx[lead + d]);
  return linear;
}

// ---- reference computations -----------------------------------------------------------------

/// Expected result: shape and row-major values.
struct Ref {
  Shape shape;
  Values values;
};

inline Ref ref_unary(const Values& x, const Shape& shape, const std::function<double(double)>& f) {
  Ref r{shape, Values(x.size())};
  for (size_t i = 0; i < x.size(); ++i) r.values[i] = f(x[i]);
  return r;
}

inline Ref ref_binary(const Values& a, const Shape& sa, const Values& b, const Shape& sb,
                      const std::function<double(double, double)>& f) {
  Ref r{broadcast(sa, sb), {}};
  r.values.resize(static_cast<size_t>(r.shape.numel()));
  for (int64_t i = 0; i < r.shape.numel(); ++i) {
    const auto idx = unravel(i, r.shape);
    r.values[i] = f(a[source_index(idx, sa)], b[source_index(idx, sb)]);
  }
  return r;
}

inline Ref ref_where(const Values& c, const Shape& sc, const Values& a, const Shape& sa,
                     const Values& b, const Shape& sb) {
  Ref r{broadcast(sc, broadcast(sa, sb)), {}};
  r.values.resize(static_cast<size_t>(r.shape.numel()));
  for (int64_t i = 0; i < r.shape.numel(); ++i) {
    const auto idx = unravel(i, r.shape);
    r.values[i] =
        c[source_index(idx, sc)] != 0.0 ? a[source_index(idx, sa)] : b[source_index(idx, sb)];
  }
  return r;
}

/// Which axes of an ndim tensor `axes` names (empty: all; negative count from the end).
inline std::vector<bool> reduced_mask(const std::vector<int64_t>& axes, int64_t ndim) {
  std::vector<bool> m(static_cast<size_t>(ndim), axes.empty());
  for (int64_t a : axes) m[a < 0 ? a + ndim : a] = true;
  return m;
}

/// Folds each reduced slice (its values in row-major order) with `fold`.
inline Ref ref_reduce(const Values& x, const Shape& shape, const std::vector<int64_t>& axes,
                      bool keepdim, const std::function<double(const Values&)>& fold) {
  const auto m = reduced_mask(axes, shape.size());
  Shape keep, out;
  for (int64_t d = 0; d < shape.size(); ++d) {
    keep.push_back(m[d] ? 1 : shape[d]);
    if (!m[d]) out.push_back(shape[d]);
  }
  std::vector<Values> slices(static_cast<size_t>(keep.numel()));
  for (int64_t i = 0; i < shape.numel(); ++i) {
    auto idx = unravel(i, shape);
    for (int64_t d = 0; d < shape.size(); ++d)
      if (m[d]) idx[d] = 0;
    slices[ravel(idx, keep)].push_back(x[i]);
  }
  Ref r{keepdim ? keep : out, Values(slices.size())};
  for (size_t i = 0; i < slices.size(); ++i) r.values[i] = fold(slices[i]);
  return r;
}

inline double fold_sum(const Values& v) {
  return std::accumulate(v.begin(), v.end(), 0.0);
}
inline double fold_mean(const Values& v) {
  return fold_sum(v) / static_cast<double>(v.size());
}
inline double fold_max(const Values& v) {
  return *std::max_element(v.begin(), v.end());
}
inline double fold_min(const Values& v) {
  return *std::min_element(v.begin(), v.end());
}
inline double fold_logsumexp(const Values& v) {
  const double m = fold_max(v);
  double s = 0.0;
  for (double x : v) s += std::exp(x - m);
  return m + std::log(s);
}
/// Index of the first largest (is_max) or smallest value.
inline double fold_arg(const Values& v, bool is_max) {
  size_t best = 0;
  for (size_t i = 1; i < v.size(); ++i)
    if (is_max ? v[i] > v[best] : v[i] < v[best]) best = i;
  return static_cast<double>(best);
}

/// Arg-reduction along one axis.
inline Ref ref_arg(const Values& x, const Shape& shape, int64_t axis, bool keepdim, bool is_max) {
  return ref_reduce(x, shape, {axis}, keepdim,
                    [is_max](const Values& v) { return fold_arg(v, is_max); });
}

/// NumPy matmul of a [..., m, k] and b [..., k, n] (1-D operands promoted and the added axis
/// removed again).
inline Ref ref_matmul(const Values& a, Shape sa, const Values& b, Shape sb) {
  const bool a_vec = sa.size() == 1, b_vec = sb.size() == 1;
  if (a_vec) sa.insert(0, 1);
  if (b_vec) sb.push_back(1);
  const int64_t m = sa[sa.size() - 2], k = sa[sa.size() - 1], n = sb[sb.size() - 1];
  Shape ba, bb;
  for (int64_t i = 0; i + 2 < sa.size(); ++i) ba.push_back(sa[i]);
  for (int64_t i = 0; i + 2 < sb.size(); ++i) bb.push_back(sb[i]);
  const Shape batch = broadcast(ba, bb);
  Shape out = batch;
  out.push_back(m);
  out.push_back(n);
  Ref r{out, Values(static_cast<size_t>(out.numel()), 0.0)};
  for (int64_t bi = 0; bi < batch.numel(); ++bi) {
    const auto idx = unravel(bi, batch);
    const int64_t ao = source_index(idx, ba) * m * k, bo = source_index(idx, bb) * k * n;
    for (int64_t i = 0; i < m; ++i)
      for (int64_t j = 0; j < n; ++j) {
        double s = 0.0;
        for (int64_t p = 0; p < k; ++p) s += a[ao + i * k + p] * b[bo + p * n + j];
        r.values[(bi * m + i) * n + j] = s;
      }
  }
  if (b_vec) r.shape.erase(r.shape.size() - 1);
  if (a_vec) r.shape.erase(r.shape.size() - (b_vec ? 1 : 2));
  return r;
}

// ---- checks ---------------------------------------------------------------------------------

/// `t` has dtype `dtype`, the reference's shape, and values within tolerance_for(dtype).
inline ::testing::AssertionResult matches(const Tensor& t, DType dtype, const Ref& ref) {
  if (t.dtype() != dtype)
    return ::testing::AssertionFailure()
           << "dtype " << dtype_name(t.dtype()) << ", expected " << dtype_name(dtype);
  if (t.shape() != ref.shape)
    return ::testing::AssertionFailure() << "shape " << t.shape() << ", expected " << ref.shape;
  return testing::all_close(t, ref.values, testing::tolerance_for(dtype));
}

/// Message fragments of the dispatch error for an (op, dtype) pair the CPU backend lacks.
inline std::string no_kernel(const char* op) {
  return std::string("no kernel for op '") + op + "'";
}
inline std::string with_dtype(DType t) {
  return std::string("with dtype '") + dtype_name(t) + "'";
}

/// Test-name suffix for dtype-parameterised tests.
struct DTypeName {
  std::string operator()(const ::testing::TestParamInfo<DType>& info) const {
    return dtype_name(info.param);
  }
};

inline const std::vector<DType>& all_dtypes() {
  static const std::vector<DType> v{DType::f32, DType::f64, DType::f16, DType::bf16,
                                    DType::i32, DType::i64, DType::u8,  DType::boolean};
  return v;
}

/// Sample values that suit dtype: small integers (non-negative for u8, 0/1 for bool) or floats.
inline Values sample_for(DType dtype, int64_t n, uint64_t seed) {
  switch (dtype) {
    case DType::boolean:
      return integers(n, seed, 0, 1);
    case DType::u8:
      return integers(n, seed, 0, 9);
    case DType::i32:
    case DType::i64:
      return integers(n, seed, -9, 9);
    default:
      return uniform(n, seed, -2.0, 2.0);
  }
}

}  // namespace exadnn::optest
