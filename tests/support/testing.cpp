#include "testing.h"

#include <cmath>
#include <fstream>
#include <sstream>

namespace exadnn::testing {

std::vector<double> values(const Tensor& t) {
  return to_vector<double>(t);
}

::testing::AssertionResult all_close(const Tensor& actual, const std::vector<double>& expected,
                                     Tolerance tol) {
  const std::vector<double> got = values(actual);
  if (got.size() != expected.size())
    return ::testing::AssertionFailure()
           << "size " << got.size() << " vs expected " << expected.size();
  int64_t bad = 0;
  std::ostringstream report;
  for (size_t i = 0; i < got.size(); ++i) {
    const double a = got[i], e = expected[i];
    const bool ok = (std::isnan(a) && std::isnan(e)) || a == e ||
                    std::fabs(a - e) <= tol.atol + tol.rtol * std::fabs(e);
    if (!ok && bad++ < 5) report << "\n  [" << i << "] got " << a << ", expected " << e;
  }
  if (bad == 0) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << bad << " of " << got.size() << " elements differ (rtol "
                                       << tol.rtol << ", atol " << tol.atol << "):" << report.str();
}

::testing::AssertionResult all_close(const Tensor& actual, const Tensor& expected) {
  if (actual.shape() != expected.shape())
    return ::testing::AssertionFailure()
           << "shape " << actual.shape() << " vs expected " << expected.shape();
  return all_close(actual, values(expected), tolerance_for(actual.dtype()));
}

namespace {

// Address of element `linear` (row-major over t's shape) of an f64 tensor, following strides.
double* element(const Tensor& t, int64_t linear) {
  int64_t offset = 0;
  for (int64_t d = t.dim() - 1; d >= 0; --d) {
    offset += (linear % t.shape()[d]) * t.strides()[d];
    linear /= t.shape()[d];
  }
  return static_cast<double*>(t.data_ptr()) + offset;
}

}  // namespace

::testing::AssertionResult gradcheck(const TensorFunction& f, const std::vector<Tensor>& inputs) {
  for (const Tensor& x : inputs)
    if (x.dtype() != DType::f64 || !x.requires_grad())
      return ::testing::AssertionFailure() << "gradcheck inputs must be f64 leaves requiring grad";
  Tensor probe;
  {
    NoGradGuard no_grad;
    probe = f(inputs);
  }
  Generator gen(99);
  const Tensor weights = randn(probe.shape(), DType::f64, &gen);
  auto scalar = [&](const std::vector<Tensor>& in) { return sum(f(in) * weights); };

  const std::vector<Tensor> analytic = autograd::grad({scalar(inputs)}, inputs);
  NoGradGuard no_grad;
  std::ostringstream report;
  int64_t bad = 0;
  for (size_t i = 0; i < inputs.size(); ++i) {
    const Tensor& x = inputs[i];
    const std::vector<double> a =
        analytic[i].defined() ? values(analytic[i]) : std::vector<double>(x.numel(), 0.0);
    for (int64_t j = 0; j < x.numel(); ++j) {
      double* p = element(x, j);
      const double saved = *p;
      *p = saved + kGradcheckStep;
      const double up = scalar(inputs).item<double>();
      *p = saved - kGradcheckStep;
      const double down = scalar(inputs).item<double>();
      *p = saved;
      const double numeric = (up - down) / (2 * kGradcheckStep);
      const double tol = kGradcheckTolerance.atol + kGradcheckTolerance.rtol * std::fabs(numeric);
      if (std::fabs(numeric - a[j]) > tol && bad++ < 5)
        report << "\n  input " << i << " element " << j << ": autograd " << a[j]
               << ", finite difference " << numeric;
    }
  }
  if (bad == 0) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << bad << " gradient elements disagree:" << report.str();
}

Tensor random_leaf(const Shape& shape, uint64_t seed) {
  Generator gen(seed);
  Tensor t = randn(shape, DType::f64, &gen);
  t.requires_grad_(true);
  return t;
}

Tensor strided_leaf(const Shape& shape, uint64_t seed) {
  Shape reversed;
  for (int64_t i = shape.size() - 1; i >= 0; --i) reversed.push_back(shape[i]);
  Generator gen(seed);
  Tensor base = randn(reversed, DType::f64, &gen);
  std::vector<int64_t> order;
  for (int64_t i = shape.size() - 1; i >= 0; --i) order.push_back(i);
  Tensor t = base.permute(order).detach();  // a leaf whose strides run backwards
  t.requires_grad_(true);
  return t;
}

std::string libraries_mapped(const std::vector<std::string>& names) {
  std::ifstream maps("/proc/self/maps");
  std::string line, found;
  for (const std::string& name : names) {
    maps.clear();
    maps.seekg(0);
    while (std::getline(maps, line))
      if (line.find(name) != std::string::npos) {
        found += line.substr(line.find('/')) + "\n";
        break;
      }
  }
  return found;
}

}  // namespace exadnn::testing
