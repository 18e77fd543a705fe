// Elementwise ops on every device: unary, binary (broadcast and strided operands), comparisons,
// where, casts; results against f64 CPU references, gradients against finite differences.
#include <cmath>
#include <limits>

#include "device_test_util.h"

namespace exadnn {
namespace {

using devtest::DeviceTest;
using devtest::matches_f64_reference;
using devtest::uniform;
using Inputs = std::vector<Tensor>;

class DeviceElementwise : public DeviceTest {};

TEST_P(DeviceElementwise, UnaryOpsMatchTheReference) {
  const Tensor x = uniform({3, 17}, 1, -3.0, 3.0);
  const Tensor positive = uniform({3, 17}, 2, 0.1, 4.0);
  auto check = [&](const char* name, const Tensor& in, auto op) {
    EXPECT_TRUE(matches_f64_reference(device(), {in}, [&](const Inputs& v) { return op(v[0]); }))
        << name;
  };
  check("neg", x, [](const Tensor& t) { return neg(t); });
  check("abs", x, [](const Tensor& t) { return abs(t); });
  check("exp", x, [](const Tensor& t) { return exp(t); });
  check("log", positive, [](const Tensor& t) { return log(t); });
  check("sqrt", positive, [](const Tensor& t) { return sqrt(t); });
  check("tanh", x, [](const Tensor& t) { return tanh(t); });
  check("sigmoid", x, [](const Tensor& t) { return sigmoid(t); });
  check("relu", x, [](const Tensor& t) { return relu(t); });
  check("clamp", x, [](const Tensor& t) { return clamp(t, -0.5, 0.75); });
  check("pow 2", x, [](const Tensor& t) { return pow(t, 2.0); });
  check("pow 1.5", positive, [](const Tensor& t) { return pow(t, 1.5); });
  check("sign", x, [](const Tensor& t) { return sign(t); });
  // On a transposed (strided) input.
  check("exp of a transpose", x, [](const Tensor& t) { return exp(t.t()); });
}

TEST_P(DeviceElementwise, SixteenBitTypesComputeInF32) {
  for (DType dtype : {DType::f16, DType::bf16}) {
    const Tensor a = uniform({5, 8}, 3).to(dtype), b = uniform({8}, 4).to(dtype);
    const Tensor got = add(mul(a.to(device()), b.to(device())), exp(a.to(device())));
    const Tensor want = add(mul(a, b), exp(a));  // the CPU computes the same way
    EXPECT_EQ(got.dtype(), dtype);
    EXPECT_TRUE(testing::all_close(got, want)) << dtype_name(dtype);
  }
}

TEST_P(DeviceElementwise, BinaryOpsBroadcastOverStridedOperands) {
  const Tensor a = uniform({4, 1, 6}, 5, 0.5, 2.0);
  const Tensor b = uniform({6, 3}, 6, 0.5, 2.0);  // used transposed: [3, 6], strided
  auto check = [&](const char* name, auto op) {
    EXPECT_TRUE(matches_f64_reference(device(), {a, b}, [&](const Inputs& v) {
      return op(v[0], v[1].t());
    })) << name;
  };
  check("add", [](const Tensor& x, const Tensor& y) { return add(x, y); });
  check("sub", [](const Tensor& x, const Tensor& y) { return sub(x, y); });
  check("mul", [](const Tensor& x, const Tensor& y) { return mul(x, y); });
  check("div", [](const Tensor& x, const Tensor& y) { return div(x, y); });
  check("pow", [](const Tensor& x, const Tensor& y) { return pow(x, y); });
  check("maximum", [](const Tensor& x, const Tensor& y) { return maximum(x, y); });
  check("minimum", [](const Tensor& x, const Tensor& y) { return minimum(x, y); });
}

TEST_P(DeviceElementwise, IntegerArithmeticIsExact) {
  const Tensor a = from_vector<int64_t>({-7, 3, 250, 9}, {4});
  const Tensor b = from_vector<int64_t>({2, -5, 7, 9}, {4});
  const Tensor got =
      add(mul(a.to(device()), b.to(device())), maximum(a.to(device()), b.to(device())));
  EXPECT_EQ(testing::values(got), (std::vector<double>{-12, -12, 2000, 90}));
}

TEST_P(DeviceElementwise, NanPropagatesThroughMaximumAndMinimum) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const Tensor a = from_vector<double>({nan, 1.0, 2.0}, {3}, TensorOptions(DType::f32));
  const Tensor b = from_vector<double>({0.0, nan, 1.0}, {3}, TensorOptions(DType::f32));
  for (const Tensor& r :
       {maximum(a.to(device()), b.to(device())), minimum(a.to(device()), b.to(device()))}) {
    const auto v = testing::values(r);
    EXPECT_TRUE(std::isnan(v[0]) && std::isnan(v[1]));
  }
}

TEST_P(DeviceElementwise, ComparisonsAndWhere) {
  const Tensor a = from_vector<double>({1, 2, 3, 4, 5, 6}, {2, 3}, TensorOptions(DType::f32));
  const Tensor b = from_vector<double>({3, 2, 1}, {3}, TensorOptions(DType::f32));
  const Tensor da = a.to(device()), db = b.to(device());
  EXPECT_EQ(testing::values(lt(da, db)), (std::vector<double>{1, 0, 0, 0, 0, 0}));
  EXPECT_EQ(testing::values(eq(da, db)), (std::vector<double>{0, 1, 0, 0, 0, 0}));
  EXPECT_EQ(testing::values(ge(da, db)), (std::vector<double>{0, 1, 1, 1, 1, 1}));
  EXPECT_EQ(testing::values(ne(da, db)), (std::vector<double>{1, 0, 1, 1, 1, 1}));
  EXPECT_EQ(testing::values(gt(da, db)), (std::vector<double>{0, 0, 1, 1, 1, 1}));
  EXPECT_EQ(testing::values(le(da, db)), (std::vector<double>{1, 1, 0, 0, 0, 0}));
  EXPECT_EQ(testing::values(where(gt(da, db), da, db)), (std::vector<double>{3, 2, 3, 4, 5, 6}));
}

TEST_P(DeviceElementwise, CastsMatchTheCpuBitForBit) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const Tensor x = from_vector<double>({nan, -1e20, -3.7, -0.0, 0.4, 2.5, 255.9, 1e20, 70000.0},
                                       {9}, TensorOptions(DType::f32));
  for (DType to :
       {DType::f64, DType::f16, DType::bf16, DType::i32, DType::i64, DType::u8, DType::boolean}) {
    const auto got = testing::values(x.to(device()).to(to));
    const auto want = testing::values(x.to(to));
    ASSERT_EQ(got.size(), want.size());
    for (size_t i = 0; i < got.size(); ++i) {
      if (std::isnan(want[i])) {
        EXPECT_TRUE(std::isnan(got[i])) << dtype_name(to) << " element " << i;
      } else {
        EXPECT_EQ(got[i], want[i]) << dtype_name(to) << " element " << i;
      }
    }
  }
}

TEST_P(DeviceElementwise, GradientsMatchFiniteDifferences) {
  const Tensor x = testing::random_leaf({3, 4}, 7);
  const Tensor y = testing::strided_leaf({3, 4}, 8);
  EXPECT_TRUE(devtest::gradcheck_on(device(), {x, y}, [](const Inputs& v) {
    return add(mul(tanh(v[0]), sigmoid(v[1])),
               div(exp(v[0]), add(mul(v[1], v[1]),
                                  ones({1}, TensorOptions(DType::f64).device(v[1].device())))));
  }));
  EXPECT_TRUE(devtest::gradcheck_on(device(), {x}, [](const Inputs& v) { return relu(v[0]); }));
}

EXADNN_INSTANTIATE_DEVICE_TEST(DeviceElementwise);

}  // namespace
}  // namespace exadnn
