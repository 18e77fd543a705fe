// Measured f32 GEMM routes (src/backend/cpu/gemm_routes.h): a large product that overwrites C is
// measured once (dnnl_sgemm against oneDNN's matmul primitive) and written to the wisdom file;
// other products follow the fixed rule and are never measured.
#include <gtest/gtest.h>
#include <omp.h>

#include <fstream>
#include <string>
#include <vector>

#include "backend/cpu/gemm_impl.h"
#include "backend/cpu/gemm_provider.h"
#include "backend/cpu/gemm_routes.h"
#include "route_tuning_fixture.h"
#include "testing.h"

using namespace exadnn;
using exadnn::testing::busy_machine;
using exadnn::testing::lines_of;
using exadnn::testing::RouteTuning;

namespace {

// C [m, n] = A [m, k] · B [k, n] (row-major, no transposes) on multiples of 1/16 in [-1, 1]:
// every partial sum is a multiple of 1/256 below 2^15, exact in f32 whatever the route's order.
struct Product {
  int64_t m, n, k;
  bool trans_b = false;
  double beta = 0.0;
  std::vector<float> a, b, c;

  Product(int64_t m_, int64_t n_, int64_t k_) : m(m_), n(n_), k(k_) {
    a.resize(static_cast<size_t>(m * k));
    b.resize(static_cast<size_t>(k * n));
    c.assign(static_cast<size_t>(m * n), 1e30f);  // stale values a β = 0 product overwrites
    for (size_t i = 0; i < a.size(); ++i) a[i] = static_cast<float>(int64_t(i * 7 % 33) - 16) / 16;
    for (size_t i = 0; i < b.size(); ++i) b[i] = static_cast<float>(int64_t(i * 5 % 31) - 15) / 16;
  }
  GemmArgs args() {
    GemmArgs g;
    g.m = m, g.n = n, g.k = k, g.trans_b = trans_b, g.alpha = 1.0, g.beta = beta;
    g.a = a.data(), g.lda = k;
    g.b = b.data(), g.ldb = trans_b ? k : n;  // a transposed B: the same numbers read as [n, k]
    g.c = c.data(), g.ldc = n;
    return g;
  }
  void run() { cpu::sgemm(args()); }
  // C's entries as the exact sum computes them (β = 0).
  void expect_exact() const {
    for (int64_t i = 0; i < m; i += 17)
      for (int64_t j = 0; j < n; j += 5) {
        double sum = 0;
        for (int64_t p = 0; p < k; ++p)
          sum += static_cast<double>(a[static_cast<size_t>(i * k + p)]) *
                 b[static_cast<size_t>(trans_b ? j * k + p : p * n + j)];
        ASSERT_EQ(c[static_cast<size_t>(i * n + j)], sum) << i << ", " << j;
      }
  }
};

// 2·256·64·512 = 16.8 MFLOP: above the measured products' floor.
Product large() {
  return Product(256, 64, 512);
}

class GemmRoutes : public RouteTuning {
 protected:
  void SetUp() override {
    if (!cpu::gemm_routes_measured())
      GTEST_SKIP() << "EXADNN_GEMM names a provider: GEMM routes follow a fixed rule";
  }
};

}  // namespace

TEST_F(GemmRoutes, ALargeProductIsMeasuredOnceAndWrittenDown) {
  Product p = large();
  ASSERT_GE(2.0 * p.m * p.n * p.k, cpu::kMeasuredGemmMinFlops);
  p.run();
  p.expect_exact();
  const auto lines = lines_of(wisdom());
  ASSERT_EQ(lines.size(), 1u);
  const std::string key = cpu::gemm_wisdom_key(p.args());
  EXPECT_TRUE(lines[0] == key + " dnnl-sgemm" || lines[0] == key + " onednn-matmul") << lines[0];
  Product again = large();
  again.run();  // known now: not measured or written again
  again.expect_exact();
  EXPECT_EQ(lines_of(wisdom()).size(), 1u);
}

TEST_F(GemmRoutes, SmallAccumulatingAndTransposedBProductsFollowTheRule) {
  Product small(16, 16, 16);
  small.run();
  small.expect_exact();
  Product accumulating = large();
  accumulating.beta = 1.0;
  accumulating.c.assign(accumulating.c.size(), 0.0f);
  accumulating.run();
  accumulating.expect_exact();
  Product transposed_b = large();
  transposed_b.trans_b = true;
  transposed_b.run();
  transposed_b.expect_exact();
  EXPECT_EQ(lines_of(wisdom()).size(), 0u);
}

TEST_F(GemmRoutes, AWrittenRouteIsFollowedAndAnUnknownOneMeasuredAgain) {
  Product p = large();
  {
    std::ofstream out(wisdom());
    out << cpu::gemm_wisdom_key(p.args()) << " onednn-matmul\n";
  }
  p.run();
  p.expect_exact();
  EXPECT_EQ(lines_of(wisdom()).size(), 1u);  // followed: nothing measured
  cpu::forget_tuned_routes();
  {
    std::ofstream out(wisdom());
    out << cpu::gemm_wisdom_key(p.args()) << " no-such-route\n";
  }
  Product again = large();
  again.run();
  again.expect_exact();
  EXPECT_EQ(lines_of(wisdom()).size(), 2u);  // measured now, and written after the bad line
}

TEST_F(GemmRoutes, AMeasurementOnABusyMachineIsKeptButNotWrittenDown) {
  cpu::set_others_cpu_clock(&busy_machine);
  Product p = large();
  p.run();
  p.expect_exact();
  EXPECT_EQ(lines_of(wisdom()).size(), 0u);
  EXPECT_EQ(measured_routes_not_remembered(), 1);
}

// Inside a parallel region the product is not measured: the team's threads would otherwise wait
// on one another's measurement (and each run through its own products' routes).
TEST_F(GemmRoutes, AProductInsideAParallelRegionIsNotMeasured) {
  std::vector<Product> products(2, large());
#pragma omp parallel for num_threads(2)
  for (int t = 0; t < 2; ++t) products[static_cast<size_t>(t)].run();
  for (const Product& p : products) p.expect_exact();
  EXPECT_EQ(lines_of(wisdom()).size(), 0u);
}

// A convolution measured by im2col runs GEMMs large enough to be measured themselves (48 × 432 ×
// 256 per image, 10.6 MFLOP). Inside the convolution's measurement they take dnnl_sgemm: on one
// thread because this thread holds the wisdom file's lock, on two because im2col's threads run
// them inside its parallel region over the batch. Either way the step completes and gives
// im2col's values. 48 channels: no Winograd route (64 or more), whose transforms would not keep
// the sums exact.
TEST_F(GemmRoutes, AProductInsideAConvolutionsMeasurementDoesNotWaitForItself) {
  const ConvAlgorithmGuard fastest(ConvAlgorithm::fastest);
  const int threads = get_num_threads();
  Tensor x = exadnn::testing::sixteenths({2, 48, 16, 16}, 1);
  Tensor w = exadnn::testing::sixteenths({48, 48, 3, 3}, 2);
  Conv2dParams params;
  params.padding = 1;
  for (int t : {1, 2}) {
    set_num_threads(t);
    const Tensor tuned = conv2d(x, w, Tensor(), params).detach();
    const ConvAlgorithmGuard im2col(ConvAlgorithm::im2col);
    EXPECT_TRUE(exadnn::testing::all_close(tuned, conv2d(x, w, Tensor(), params).detach())) << t;
  }
  set_num_threads(threads);
}
