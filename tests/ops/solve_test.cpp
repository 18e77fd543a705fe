// solve (LAPACK gesv): reference, gradient, batching and errors.
#include "testing.h"

using namespace exadnn;

namespace {
// A well-conditioned random matrix: N(0,1) entries plus n on the diagonal.
Tensor well_conditioned(int64_t n, uint64_t seed, DType dtype = DType::f64) {
  Generator gen(seed);
  Tensor a = randn({n, n}, DType::f64, &gen);
  double* p = a.data<double>();
  for (int64_t i = 0; i < n; ++i) p[i * n + i] += static_cast<double>(n);
  return a.to(dtype);
}
}  // namespace

TEST(Solve, ResidualIsSmall) {
  for (DType dtype : {DType::f32, DType::f64}) {
    Tensor a = well_conditioned(50, 3, dtype);
    Tensor b = randn({50, 4}, dtype);
    Tensor x = solve(a, b);
    EXPECT_EQ(x.shape(), (Shape{50, 4}));
    EXPECT_TRUE(exadnn::testing::all_close(matmul(a, x), b)) << dtype_name(dtype);
  }
}

TEST(Solve, VectorRightHandSideAndTransposedMatrix) {
  Tensor a = well_conditioned(6, 4);
  Tensor b = randn({6}, DType::f64);
  Tensor x = solve(a.t(), b);  // a strided (transposed) matrix is copied, not misread
  EXPECT_EQ(x.shape(), (Shape{6}));
  EXPECT_TRUE(exadnn::testing::all_close(matmul(a.t(), x), b));
}

TEST(Solve, BatchesBroadcast) {
  std::vector<double> eye(25, 0.0);
  for (int i = 0; i < 5; ++i) eye[i * 5 + i] = 5.0;
  Generator gen(8);
  Tensor a = randn({2, 1, 5, 5}, DType::f64, &gen) + from_vector<double>(eye, {5, 5});
  Tensor b = randn({3, 5, 2}, DType::f64, &gen);
  Tensor x = solve(a, b);
  EXPECT_EQ(x.shape(), (Shape{2, 3, 5, 2}));
  EXPECT_TRUE(exadnn::testing::all_close(matmul(a, x), b.expand({2, 3, 5, 2})));
}

TEST(Solve, GradientMatchesFiniteDifferences) {
  Tensor a = well_conditioned(4, 5).detach();
  a.requires_grad_();
  Tensor b = exadnn::testing::random_leaf({4, 3}, 6);
  EXPECT_TRUE(exadnn::testing::gradcheck(
      [](const std::vector<Tensor>& in) { return solve(in[0], in[1]); }, {a, b}));
  Tensor v = exadnn::testing::random_leaf({4}, 7);
  EXPECT_TRUE(exadnn::testing::gradcheck(
      [](const std::vector<Tensor>& in) { return solve(in[0].t(), in[1]); }, {a, v}));
}

TEST(Solve, SingularMatrixIsNamed) {
  Tensor a = from_vector<double>({1, 2, 2, 4}, {2, 2});
  EXPECT_EXADNN_ERROR(solve(a, ones({2}, DType::f64)), "solve", "singular", "[2, 2]");
}

TEST(Solve, BadShapesAndTypes) {
  EXPECT_EXADNN_ERROR(solve(ones({2, 3}, DType::f64), ones({2}, DType::f64)), "solve", "square",
                      "[2, 3]");
  EXPECT_EXADNN_ERROR(solve(ones({3, 3}, DType::f64), ones({2, 1}, DType::f64)), "solve", "[2, 1]",
                      "[3, 3]");
  EXPECT_EXADNN_ERROR(solve(ones({2, 2}, DType::f64), ones({2}, DType::f32)), "solve", "f64",
                      "f32");
  EXPECT_EXADNN_ERROR(solve(ones({2, 2}, DType::i32), ones({2}, DType::i32)), "solve", "i32");
}
