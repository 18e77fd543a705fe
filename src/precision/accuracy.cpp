// Relative Frobenius error of a matmul precision against an f64 product.
#include "exadnn/precision/accuracy.h"

#include <cmath>
#include <vector>

#include "exadnn/core/rng.h"
#include "exadnn/ops/factories.h"
#include "exadnn/ops/linalg.h"

namespace exadnn::precision {

double matmul_relative_error(int64_t n, MatmulPrecision precision, uint64_t seed) {
  Generator gen(seed);
  auto uniform = [&] {
    std::vector<float> v(static_cast<size_t>(n * n));
    for (float& x : v) x = static_cast<float>(2.0 * gen.uniform() - 1.0);
    return from_vector(v, {n, n});
  };
  const Tensor a = uniform(), b = uniform();
  const std::vector<float> c = to_vector<float>(matmul(a, b, precision));
  const std::vector<double> ref = to_vector<double>(matmul(a.to(DType::f64), b.to(DType::f64)));
  double diff = 0.0, norm = 0.0;
  for (size_t i = 0; i < ref.size(); ++i) {
    const double d = static_cast<double>(c[i]) - ref[i];
    diff += d * d;
    norm += ref[i] * ref[i];
  }
  return std::sqrt(diff / norm);
}

}  // namespace exadnn::precision
