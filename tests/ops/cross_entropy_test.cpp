// softmax_cross_entropy (the fused op) and one_hot: values against a naive f64 loop, gradients
// against finite differences and against softmax - one_hot, agreement with the composed ops it
// replaces, stability, NaN, dtypes and errors naming the culprit.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "op_test_util.h"

using namespace exadnn;
using exadnn::optest::make;
using exadnn::optest::matches;
using exadnn::optest::Ref;
using exadnn::optest::Values;
using exadnn::testing::all_close;
using exadnn::testing::gradcheck;
using exadnn::testing::random_leaf;
using exadnn::testing::strided_leaf;

namespace {

// Shapes [N, C]: tiny, the Fashion-MNIST batch, and one large enough for the parallel loop.
const std::vector<Shape>& shapes() {
  static const std::vector<Shape> v{{1, 1}, {3, 4}, {128, 10}, {300, 200}};
  return v;
}

// n class indices in [0, c) as i64.
Tensor targets(int64_t n, int64_t c, uint64_t seed) {
  return make(optest::integers(n, seed, 0, c - 1), {n}, DType::i64);
}

// log Σ_k exp(x[i, k]) of row i of x [n, c], in f64 with the row maximum subtracted.
double naive_lse(const Values& x, int64_t i, int64_t c) {
  double mx = -std::numeric_limits<double>::infinity();
  for (int64_t k = 0; k < c; ++k) mx = std::max(mx, x[i * c + k]);
  double s = 0.0;
  for (int64_t k = 0; k < c; ++k) s += std::exp(x[i * c + k] - mx);
  return std::log(s) + mx;
}

// The loss of each row, lse − x[n, t[n]], and d(Σ g[n] loss[n]) / dx = g[n] (softmax − one_hot).
TEST(CrossEntropy, ValuesAndGradientsMatchNaiveLoops) {
  for (DType dt : {DType::f32, DType::f64})
    for (const Shape& s : shapes()) {
      SCOPED_TRACE(::testing::Message() << s << " " << dtype_name(dt));
      const int64_t n = s[0], c = s[1];
      const Values x = optest::uniform(n * c, 3, -6.0, 6.0);
      const Values t = optest::integers(n, 4, 0, c - 1);
      const Values g = optest::uniform(n, 7, -2.0, 2.0);
      Values loss(static_cast<size_t>(n)), grad(x.size());
      for (int64_t i = 0; i < n; ++i) {
        const double lse = naive_lse(x, i, c);
        const auto target = static_cast<int64_t>(t[i]);
        loss[i] = lse - x[i * c + target];
        for (int64_t k = 0; k < c; ++k)
          grad[i * c + k] = g[i] * (std::exp(x[i * c + k] - lse) - (k == target ? 1.0 : 0.0));
      }
      Tensor logits = make(x, s, dt).requires_grad_();
      const Tensor got = softmax_cross_entropy(logits, make(t, {n}, DType::i64));
      EXPECT_TRUE(matches(got, dt, Ref{{n}, loss}));
      got.backward(make(g, {n}, dt));
      EXPECT_TRUE(matches(logits.grad(), dt, Ref{s, grad}));
    }
}

TEST(CrossEntropyGradcheck, FiniteDifferences) {
  const Tensor t = from_vector<int64_t>({0, 4, 2, 2});
  EXPECT_TRUE(
      gradcheck([&](const std::vector<Tensor>& in) { return softmax_cross_entropy(in[0], t); },
                {random_leaf({4, 5}, 1)}));
  // A strided (transposed) input, and the op inside a composition.
  EXPECT_TRUE(gradcheck(
      [&](const std::vector<Tensor>& in) {
        return mean(softmax_cross_entropy(in[0] * 2.0, t)) * sum(in[0]);
      },
      {strided_leaf({4, 5}, 2)}));
}

// The fused kernel against the ops it replaces on CPU (and still runs where a backend has no
// kernel): log_softmax picked by one_hot, values and gradients, f32.
TEST(CrossEntropyForward, AgreesWithTheComposedOps) {
  const int64_t n = 128, c = 10;
  const Values x = optest::uniform(n * c, 8, -4.0, 4.0);
  const Tensor t = targets(n, c, 9);
  Tensor fused = make(x, {n, c}, DType::f32).requires_grad_();
  Tensor composed = make(x, {n, c}, DType::f32).requires_grad_();
  const Tensor a = mean(softmax_cross_entropy(fused, t));
  const Tensor b = mean(neg(sum(log_softmax(composed, 1) * one_hot(t, c), {1})));
  EXPECT_NEAR(a.item<double>(), b.item<double>(), 1e-6);
  a.backward();
  b.backward();
  EXPECT_TRUE(all_close(fused.grad(), composed.grad()));
}

TEST(CrossEntropyForward, StableForLargeLogitsAndNanStaysInItsRow) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const Values x{1000.0, 1001.0, 999.0, -1000.0, -1001.0, -999.0, 0.0, nan, 1.0};
  const Values t{1, 2, 0};
  const Tensor loss = softmax_cross_entropy(make(x, {3, 3}, DType::f32), make(t, {3}, DType::i64));
  const Values got = exadnn::testing::values(loss);
  const double want0 = std::log(std::exp(-1.0) + 1.0 + std::exp(-2.0));  // the same for row 1
  EXPECT_NEAR(got[0], want0, 1e-5);
  EXPECT_NEAR(got[1], want0, 1e-5);
  EXPECT_TRUE(std::isnan(got[2]));
}

TEST(CrossEntropyForward, HalfLogitsComputeInF32AndGetHalfGradients) {
  const Values x = optest::uniform(12, 10, -2.0, 2.0);
  const Tensor t = make({2, 0, 3}, {3}, DType::i32);  // any integer dtype
  Tensor h = make(x, {3, 4}, DType::f16).requires_grad_();
  const Tensor loss = softmax_cross_entropy(h, t);
  EXPECT_EQ(loss.dtype(), DType::f32);
  sum(loss).backward();
  EXPECT_EQ(h.grad().dtype(), DType::f16);
  Tensor f = make(exadnn::testing::values(h), {3, 4}, DType::f32).requires_grad_();
  sum(softmax_cross_entropy(f, t)).backward();
  EXPECT_TRUE(all_close(h.grad().to(DType::f32), f.grad().to(DType::f16).to(DType::f32)));
}

TEST(CrossEntropyErrors, NameTheCulprit) {
  const Tensor logits = zeros({2, 3});
  EXPECT_EXADNN_ERROR(softmax_cross_entropy(logits, from_vector<int64_t>({0, 3})), "cross_entropy",
                      "class index 3", "example 1", "[0, 3)");
  EXPECT_EXADNN_ERROR(softmax_cross_entropy(logits, from_vector<int64_t>({-1, 0})), "cross_entropy",
                      "class index -1", "example 0");
  EXPECT_EXADNN_ERROR(softmax_cross_entropy(logits, from_vector<int64_t>({0, 1, 2})),
                      "cross_entropy", "[3]", "[2, 3]");
  EXPECT_EXADNN_ERROR(softmax_cross_entropy(logits, zeros({2})), "cross_entropy", "integers");
  EXPECT_EXADNN_ERROR(softmax_cross_entropy(zeros({3}), from_vector<int64_t>({0, 1, 2})),
                      "cross_entropy", "[N, C]");
  EXPECT_EXADNN_ERROR(
      softmax_cross_entropy(zeros({2, 3}, DType::i64), from_vector<int64_t>({0, 1})),
      "cross_entropy", "floating");
  EXPECT_EXADNN_ERROR(softmax_cross_entropy(Tensor(), from_vector<int64_t>({0})), "cross_entropy",
                      "logits");
  EXPECT_EXADNN_ERROR(one_hot(from_vector<int64_t>({0, 5}), 3), "one_hot", "class index 5",
                      "[0, 3)");
}

TEST(OneHot, EncodesAnyIntegerDtype) {
  EXPECT_TRUE(all_close(one_hot(from_vector<int32_t>({2, 0}), 3, DType::f64), {0, 0, 1, 1, 0, 0},
                        exadnn::testing::tolerance_for(DType::f64)));
  EXPECT_EQ(one_hot(from_vector<int64_t>({1}), 2).dtype(), DType::f32);
}

}  // namespace
