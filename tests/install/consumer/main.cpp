// Uses the installed library: a small product and its gradient; exits non-zero on a wrong answer.
#include <exadnn/exadnn.h>

#include <cmath>
#include <cstdio>

int main() {
  using namespace exadnn;
  Tensor x = from_vector<double>({1, 2, 3, 4}, {2, 2}, TensorOptions(DType::f64).requires_grad());
  Tensor y = sum(matmul(x, x));  // d/dx sum(x·x) = 1·xᵀ + xᵀ·1
  y.backward();
  const std::vector<double> g = to_vector<double>(x.grad());
  const double expected[] = {7, 11, 9, 13};
  for (int i = 0; i < 4; ++i) {
    if (std::fabs(g[i] - expected[i]) > 1e-12) {
      std::printf("wrong gradient %d: %f vs %f\n", i, g[i], expected[i]);
      return 1;
    }
  }
  std::printf("consumer ok: exadnn %s, sum = %g\n", version(), y.item<double>());
  return 0;
}
