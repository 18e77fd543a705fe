// Load-time data checks (see exadnn/data/validate.h).
#include "exadnn/data/validate.h"

#include <algorithm>
#include <cmath>
#include <vector>

namespace exadnn::data {
namespace {

constexpr const char* kWhere = "data";

// "[1, 2]": the multi-index of flat element `flat` of a row-major tensor of `shape`.
std::string index_of(const Shape& shape, int64_t flat) {
  std::vector<int64_t> idx(static_cast<size_t>(shape.size()));
  for (int64_t d = shape.size() - 1; d >= 0; --d) {
    idx[static_cast<size_t>(d)] = flat % shape[d];
    flat /= shape[d];
  }
  std::string s = "[";
  for (size_t d = 0; d < idx.size(); ++d) s += detail::cat(d ? ", " : "", idx[d]);
  return s + "]";
}

template <class T>
int64_t first_non_finite(const T* v, int64_t n) {
  for (int64_t i = 0; i < n; ++i)
    if (!std::isfinite(v[i])) return i;
  return -1;
}

bool is_integer_dtype(DType t) {
  return t == DType::u8 || t == DType::i32 || t == DType::i64;
}

}  // namespace

void check_not_empty(const Dataset& dataset, const std::string& source) {
  EXADNN_CHECK(dataset.size() > 0, kWhere, source,
               ": no examples (an empty dataset cannot train or be scored)");
}

void check_finite(const Tensor& values, const std::string& source, const std::string& what) {
  if (!values.defined() || !is_floating(values.dtype()) || values.numel() == 0) return;
  // f16 and bf16 widen exactly (NaN and infinity included).
  Tensor t = values.detach().to(Device::cpu());
  if (t.dtype() != DType::f64) t = t.to(DType::f32);
  t = t.contiguous();
  const int64_t bad = t.dtype() == DType::f64 ? first_non_finite(t.data<double>(), t.numel())
                                              : first_non_finite(t.data<float>(), t.numel());
  if (bad < 0) return;
  const double v = t.dtype() == DType::f64 ? t.data<double>()[bad] : t.data<float>()[bad];
  throw Error(kWhere, detail::cat(source, ": ", what, " holds ", v, " at index ",
                                  index_of(t.shape(), bad), " (NaN and infinity are not data)"));
}

std::vector<int64_t> read_class_labels(const Dataset& dataset, const std::string& source) {
  EXADNN_CHECK(is_integer_dtype(dataset.target_dtype()) && dataset.target_shape().size() == 0,
               kWhere, source, ": the targets are ", dtype_name(dataset.target_dtype()), " ",
               dataset.target_shape(), " per example, not class indices (an integer each)");
  constexpr int64_t kChunk = 8192;  // examples asked for at a time (targets only)
  std::vector<int64_t> labels(static_cast<size_t>(dataset.size()));
  std::vector<int64_t> indices;
  for (int64_t start = 0; start < dataset.size(); start += kChunk) {
    const int64_t n = std::min(kChunk, dataset.size() - start);
    indices.resize(static_cast<size_t>(n));
    for (int64_t i = 0; i < n; ++i) indices[static_cast<size_t>(i)] = start + i;
    const Tensor t = dataset.get_targets(indices).to(DType::i64).contiguous();
    std::copy_n(t.data<int64_t>(), n, labels.begin() + start);
  }
  return labels;
}

std::vector<int64_t> check_class_labels(const Dataset& dataset, int64_t num_classes,
                                        const std::string& source) {
  EXADNN_CHECK(num_classes > 0, kWhere, source, ": ", num_classes,
               " classes: a classifier needs at least one");
  std::vector<int64_t> labels = read_class_labels(dataset, source);
  for (size_t i = 0; i < labels.size(); ++i)
    EXADNN_CHECK(labels[i] >= 0 && labels[i] < num_classes, kWhere, source, ": example ", i,
                 " has label ", labels[i], ", outside the ", num_classes, " classes [0, ",
                 num_classes - 1, "]");
  return labels;
}

}  // namespace exadnn::data
