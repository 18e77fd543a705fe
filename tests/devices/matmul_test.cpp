// Matrix products on every device: f32 at each matmul precision (fp32, bf16, fp16, split_fp16,
// split_bf16), f64, f16 and bf16 operands, transposed and batched operands, and gradients.
#include <cmath>

#include "device_test_util.h"

namespace exadnn {
namespace {

using devtest::DeviceTest;
using Inputs = std::vector<Tensor>;

constexpr MatmulPrecision kPrecisions[] = {MatmulPrecision::fp32, MatmulPrecision::bf16,
                                           MatmulPrecision::fp16, MatmulPrecision::split_fp16,
                                           MatmulPrecision::split_bf16};

// Multiples of 1/2 in [-2, 2]: exact in every 16-bit format, every product and partial sum exact
// in f32, so every precision must give the f64 product up to the rounding of the result.
Tensor exact_operand(const Shape& shape, uint64_t seed) {
  Generator gen(seed);
  std::vector<double> v(static_cast<size_t>(shape.numel()));
  for (auto& x : v) x = 0.5 * std::floor(gen.uniform() * 9.0 - 4.0);
  return from_vector<double>(v, shape, TensorOptions(DType::f32));
}

// ‖got − want‖_F / ‖want‖_F.
double relative_error(const Tensor& got, const Tensor& want) {
  const auto g = testing::values(got), w = testing::values(want);
  double num = 0, den = 0;
  for (size_t i = 0; i < g.size(); ++i) {
    num += (g[i] - w[i]) * (g[i] - w[i]);
    den += w[i] * w[i];
  }
  return std::sqrt(num / den);
}

class DeviceMatmul : public DeviceTest {};

TEST_P(DeviceMatmul, EveryPrecisionIsExactOnExactOperands) {
  const Tensor a = exact_operand({33, 70}, 1), b = exact_operand({70, 19}, 2);
  const Tensor want = matmul(a.to(DType::f64), b.to(DType::f64));
  for (MatmulPrecision p : kPrecisions) {
    EXPECT_TRUE(testing::all_close(matmul(a.to(device()), b.to(device()), p), want))
        << matmul_precision_name(p);
    // Transposed operands take cuBLAS's transpose flags.
    const Tensor bt = b.to(device()).t(), at = a.to(device()).t();  // strided views
    EXPECT_TRUE(testing::all_close(matmul(bt, at, p), want.t()))
        << matmul_precision_name(p) << " transposed";
  }
}

TEST_P(DeviceMatmul, EachPrecisionIsAsAccurateAsOnTheCpu) {
  const Tensor a = devtest::uniform({96, 200}, 3), b = devtest::uniform({200, 64}, 4);
  const Tensor want = matmul(a.to(DType::f64), b.to(DType::f64));
  for (MatmulPrecision p : kPrecisions) {
    const double cpu = relative_error(matmul(a, b, p), want);
    const double here = relative_error(matmul(a.to(device()), b.to(device()), p), want);
    // Summation orders differ; the error level of the precision must not.
    EXPECT_LE(here, 2.0 * cpu + 1e-7) << matmul_precision_name(p) << " (cpu " << cpu << ")";
  }
}

TEST_P(DeviceMatmul, OtherDtypesAndBatches) {
  const Tensor a = devtest::uniform({2, 7, 9}, 5), b = devtest::uniform({9, 4}, 6);
  for (DType dtype : {DType::f64, DType::f16, DType::bf16}) {
    const Tensor got = matmul(a.to(dtype).to(device()), b.to(dtype).to(device()));
    EXPECT_EQ(got.dtype(), dtype);
    // The reference multiplies the same (rounded) operands in f64.
    const Tensor want = matmul(a.to(dtype).to(DType::f64), b.to(dtype).to(DType::f64));
    EXPECT_TRUE(testing::all_close(got, want)) << dtype_name(dtype);
  }
  // A batch on both sides.
  const Tensor c = devtest::uniform({2, 9, 3}, 7);
  EXPECT_TRUE(devtest::matches_f64_reference(device(), {a, c},
                                             [](const Inputs& v) { return matmul(v[0], v[1]); }));
}

TEST_P(DeviceMatmul, GradientsMatchFiniteDifferences) {
  const Tensor a = testing::random_leaf({3, 5}, 8), b = testing::strided_leaf({5, 4}, 9);
  const Tensor bias = testing::random_leaf({4}, 10);
  EXPECT_TRUE(
      devtest::gradcheck_on(device(), {a, b}, [](const Inputs& v) { return matmul(v[0], v[1]); }));
  EXPECT_TRUE(devtest::gradcheck_on(device(), {a, b, bias},
                                    [](const Inputs& v) { return linear(v[0], v[1].t(), v[2]); }));
}

EXADNN_INSTANTIATE_DEVICE_TEST(DeviceMatmul);

#ifdef EXADNN_HAS_CUDA
// TF32 is an opt-in of the CUDA backend: products with 10-bit mantissas, f32 sums.
TEST(CudaMatmul, Tf32IsOptInAndCloseToFp32) {
  EXADNN_SKIP_IF_UNAVAILABLE(Device::cuda(0));
  const Tensor a = devtest::uniform({128, 128}, 11), b = devtest::uniform({128, 128}, 12);
  const Tensor want = matmul(a.to(DType::f64), b.to(DType::f64));
  const double fp32 = relative_error(matmul(a.to(Device::cuda()), b.to(Device::cuda())), want);
  double tf32 = 0;
  {
    cuda::Tf32Guard guard;
    EXPECT_TRUE(cuda::tf32_enabled());
    tf32 = relative_error(matmul(a.to(Device::cuda()), b.to(Device::cuda())), want);
  }
  EXPECT_FALSE(cuda::tf32_enabled());
  EXPECT_LE(fp32, 1e-6);
  EXPECT_LE(tf32, 2e-3);  // 2^-11 relative per product
}
#endif

}  // namespace
}  // namespace exadnn
